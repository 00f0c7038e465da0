package dev.mcprelay.interceptors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.mock.env.MockEnvironment;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.RequestHeaders;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.jsonrpc.JsonRpcJson;
import dev.mcprelay.intercept.CallConfiguration;
import dev.mcprelay.interceptors.toolsearch.KeptCatalogues;
import dev.mcprelay.interceptors.toolsearch.ToolSearchPolicy;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.policy.PolicyCompiler;
import dev.mcprelay.policy.PublishedCatalogues;
import dev.mcprelay.policy.ServerListings;
import dev.mcprelay.proxy.UpstreamLister;
import dev.mcprelay.proxy.UpstreamRegistry;
import dev.mcprelay.testsupport.BoundProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import reactor.core.publisher.Mono;

/**
 * Whether a tool is the relay's own (tool search's {@code search_available_tools}), which no policy decides, is asked
 * of the call's own snapshot (review 44e, F6): a call begun before a reload that turns tool search on goes to the
 * server's tool of that name, and the policies that deny it refuse it.
 */
class RelayOwnToolOfTheRequestSnapshotTest {

	private static final Map<String, String> RUNNING = Map.of("security.mode", "none",
			"servers.alpha.url", "http://127.0.0.1:1/mcp",
			"policies[0].name", "no-search", "policies[0].servers[0]", "alpha",
			"policies[0].deny", "mcp.method == \"tools/call\" && mcp.tool.name == \"search_available_tools\"");

	@Test
	void aCallBegunBeforeAReloadTurnsToolSearchOnIsDecidedByThePolicies() throws Exception {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		StaticListableBeanFactory beans = new StaticListableBeanFactory();
		UpstreamRegistry upstreams = new UpstreamRegistry(beans.getBeanProvider(LiveConfiguration.class));
		PolicyCompiler compiler = new PolicyCompiler(registry, beans.getBeanProvider(LiveConfiguration.class));
		ToolSearchPolicy toolSearch = new ToolSearchPolicy(upstreams, null, null, registry, compiler,
				new ServerListings(), new KeptCatalogues(), null, beans.getBeanProvider(LiveConfiguration.class));
		LiveConfiguration live = new LiveConfiguration(BoundProperties.of(RUNNING), new MockEnvironment(),
				List.of(upstreams, compiler, toolSearch));
		beans.addBean("live", live);
		ConfigurationSnapshot before = live.current();
		PolicyEnforcement enforcement = new PolicyEnforcement(compiler.of(before),
				new PublishedCatalogues((context, list, until) -> Mono.just(new UpstreamLister.Listed(
						List.of(JsonNodeFactory.instance.objectNode().put("name", "search_available_tools")), true)),
						context -> before.properties().servers().get(context.server())),
				before.properties(), List.of(toolSearch));
		ToolsCallRequest call = new ToolsCallRequest(CallConfiguration.attach(
				new CallContext("alpha", RequestHeaders.empty(), Caller.ANONYMOUS), before), (ObjectNode) JsonRpcJson
			.mapper()
			.readTree("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
					+ "{\"name\":\"search_available_tools\",\"arguments\":{}}}"));

		Map<String, String> searching = new HashMap<>(RUNNING);
		searching.put("servers.alpha.tool-search.enabled", "true");
		live.apply(BoundProperties.of(searching));
		assertThat(toolSearch.searches("alpha")).as("the reload turned tool search on").isTrue();

		assertThat(catchThrowable(enforcement.interceptToolsCall(call)::block))
			.as("the call's snapshot has no tool search: the server's tool, denied")
			.isInstanceOf(RejectError.class);
	}

}
