package dev.mcprelay.interceptors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.RequestHeaders;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.jsonrpc.JsonRpcJson;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.policy.Policies;
import dev.mcprelay.policy.PublishedCatalogues;
import dev.mcprelay.proxy.UpstreamLister;
import dev.mcprelay.testsupport.BoundProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import reactor.core.Fuseable;
import reactor.core.publisher.Mono;

/**
 * A call on a server whose policies read the tool is decided at once once the caller's view of the tools is kept: a
 * constant {@code Mono} (allowed or refused), which the interceptor chain takes as it is, with no timer and no
 * subscription (issue 43's cost); only a call whose view was not listed yet waits for the listing, once.
 */
class PolicyDecidedAtOnceTest {

	private static final RelayProperties PROPERTIES = BoundProperties.of(Map.of(
			"servers.fast.url", "http://127.0.0.1:1/mcp",
			"policies[0].name", "named-tools",
			"policies[0].servers[0]", "fast",
			"policies[0].allow", "mcp.tool.name in [\"echo\", \"search\"]",
			"policies[1].name", "no-rm",
			"policies[1].servers[0]", "fast",
			"policies[1].deny", "mcp.arguments.?message.orValue(\"\") == \"rm -rf /\""));

	private final AtomicInteger listings = new AtomicInteger();

	private final PolicyEnforcement enforcement = new PolicyEnforcement(
			Policies.of(PROPERTIES, new SimpleMeterRegistry()),
			new PublishedCatalogues((context, list, until) -> Mono.fromSupplier(() -> {
				listings.incrementAndGet();
				return new UpstreamLister.Listed(List.of(tool("echo"), tool("search"), tool("get")), true);
			}), context -> PROPERTIES.servers().get(context.server())), PROPERTIES, List.of());

	@Test
	void aCallOfAKeptViewIsDecidedAtOnceAllowedOrRefused() throws Exception {
		Mono<Outcome> first = enforcement.interceptToolsCall(call("echo", "hi"));
		assertThat(first).as("not listed yet: waits for the listing").isNotInstanceOf(Fuseable.ScalarCallable.class);
		assertThat(first.block().kind()).isEqualTo(Outcome.Kind.PROCEED);

		for (String[] call : new String[][] { { "echo", "hi" }, { "search", "x" } }) {
			Mono<Outcome> decided = enforcement.interceptToolsCall(call(call[0], call[1]));
			assertThat(decided).as("%s", (Object) call).isInstanceOf(Fuseable.ScalarCallable.class);
			assertThat(decided.block().kind()).isEqualTo(Outcome.Kind.PROCEED);
		}
		for (String[] call : new String[][] { { "get", "x" }, { "echo", "rm -rf /" }, { "unpublished", "x" } }) {
			Mono<Outcome> decided = enforcement.interceptToolsCall(call(call[0], call[1]));
			assertThat(decided).as("%s", (Object) call).isInstanceOf(Fuseable.ScalarCallable.class);
			assertThat(catchThrowable(decided::block)).as("%s", (Object) call)
				.isInstanceOf(RejectError.class)
				.hasMessage("Unknown tool: " + call[0]);
		}
		assertThat(listings).as("listed once").hasValue(1);
	}

	private static ToolsCallRequest call(String tool, String message) throws Exception {
		ObjectNode json = (ObjectNode) JsonRpcJson.mapper()
			.readTree("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
					+ "\",\"arguments\":{\"message\":\"" + message + "\"}}}");
		return new ToolsCallRequest(new CallContext("fast", RequestHeaders.empty(), Caller.ANONYMOUS), json);
	}

	private static JsonNode tool(String name) {
		return JsonNodeFactory.instance.objectNode().put("name", name);
	}

}
