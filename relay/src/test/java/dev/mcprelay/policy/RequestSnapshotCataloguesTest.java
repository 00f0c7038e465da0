package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.mock.env.MockEnvironment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.api.RequestHeaders;
import dev.mcprelay.intercept.CallConfiguration;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.proxy.UpstreamRegistry;
import dev.mcprelay.testsupport.BoundProperties;

/**
 * The catalogues policies decide from, as the relay wires them ({@link PolicyConfiguration}), take the server a
 * request addresses from the request's own snapshot (review 44e, F5): a {@code tools/list} answer of a server's old
 * upstream that lands after a reload moved the server to another upstream is kept under the old upstream's view, so
 * that a call to the new upstream is never decided from what the old one published.
 */
class RequestSnapshotCataloguesTest {

	private static final Map<String, String> RUNNING = Map.of("security.mode", "none", "servers.alpha.url",
			"http://127.0.0.1:1/mcp");

	@Test
	void aListAnswerOfTheOldUpstreamThatLandsAfterAReloadMovedTheServerIsKeptUnderTheOldUpstreamsView() {
		StaticListableBeanFactory beans = new StaticListableBeanFactory();
		UpstreamRegistry upstreams = new UpstreamRegistry(beans.getBeanProvider(LiveConfiguration.class));
		LiveConfiguration live = new LiveConfiguration(BoundProperties.of(RUNNING), new MockEnvironment(),
				List.of(upstreams));
		beans.addBean("live", live);
		PublishedCatalogues catalogues = new PolicyConfiguration().publishedCatalogues(null, upstreams,
				new ServerListings());
		ConfigurationSnapshot before = live.current();
		CallContext listedBefore = on(before);
		catalogues.listing(listedBefore, "tools/list");

		Map<String, String> moved = new HashMap<>(RUNNING);
		moved.put("servers.alpha.url", "http://127.0.0.1:2/mcp");
		ConfigurationSnapshot after = live.apply(BoundProperties.of(moved));
		assertThat(upstreams.find("alpha").properties().url()).as("the reload moved alpha").contains(":2/");
		catalogues.published(listedBefore, "tools/list", List.of(tool("danger", true)));

		assertThat(catalogues.known(on(after), "tools/list", "danger", true))
			.as("a request to the new upstream does not know the old upstream's definition")
			.isNull();
		assertThat(catalogues.known(on(before), "tools/list", "danger", true))
			.as("a request still on the old snapshot (the old upstream) does")
			.hasValue(Map.of("readOnlyHint", true));
	}

	/** A request of alice to alpha, running on {@code snapshot}. */
	private static CallContext on(ConfigurationSnapshot snapshot) {
		return CallConfiguration.attach(new CallContext("alpha", RequestHeaders.empty(), Caller.apiKey("alice")),
				snapshot);
	}

	private static JsonNode tool(String name, boolean readOnly) {
		ObjectNode tool = JsonNodeFactory.instance.objectNode().put("name", name);
		tool.putObject("annotations").put("readOnlyHint", readOnly);
		return tool;
	}

}
