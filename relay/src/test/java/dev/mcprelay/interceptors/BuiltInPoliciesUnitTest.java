package dev.mcprelay.interceptors;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.Caller;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.policy.Policies;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import dev.mcprelay.test.InterceptorTestKit;
import dev.mcprelay.test.TestResult;
import dev.mcprelay.testsupport.BoundProperties;

/**
 * The built-in tool allow/deny lists and argument policy as units, on the interceptor test kit: no relay, no network;
 * the integration tests ({@link ToolAccessPolicyTest}, {@link ArgumentPolicyTest}) cover them on the wire. The lists run
 * on the policy engine ({@link PolicyEnforcement}).
 */
class BuiltInPoliciesUnitTest {

	private static final RelayProperties PROPERTIES = BoundProperties.of(Map.of(
			"servers.github.url", "http://127.0.0.1:1/mcp",
			"servers.github.tools.deny[0]", "secret_*",
			"servers.github.arguments.inject[0].name", "_tenant",
			"servers.github.arguments.inject[0].from-caller-claim", "tenant",
			"servers.github.arguments.inject[1].name", "region",
			"servers.github.arguments.inject[1].value", "eu",
			"servers.github.arguments.inject[1].tools[0]", "search",
			"servers.jira.url", "http://127.0.0.1:2/mcp"));

	private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";

	private final InterceptorTestKit github = InterceptorTestKit.forServer("github")
		.caller(Caller.token("alice", Set.of("mcp"), Map.of("tenant", "acme")));

	/**
	 * The tool lists on the policy engine, as the relay builds it (no tool definitions: the lists are about names as
	 * written, so no rule reads a tool the server published).
	 */
	private static PolicyEnforcement enforcement() {
		return new PolicyEnforcement(Policies.of(PROPERTIES, new SimpleMeterRegistry()), null, PROPERTIES,
				java.util.List.of());
	}

	@Test
	void aDeniedToolIsRefusedAsUnknownBeforeItGoesUpstream() {
		TestResult result = github.request(ToolsCallRequest.class, call(1, "secret_admin", "{}"))
			.run(enforcement());

		assertThat(result.rejected()).isTrue();
		assertThat(result.error().code()).isEqualTo(-32602);
		assertThat(result.decidedBy()).isEqualTo("policy");
	}

	@Test
	void aDeniedToolVanishesFromTheListAndTheRestIsRelayedAsItCame() {
		String tools = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"search\",\"inputSchema\":"
				+ "{\"type\":\"object\"},\"x-extra\":1.50},{\"name\":\"secret_admin\",\"inputSchema\":{\"type\":\"object\"}}]}}";

		TestResult result = github.response(ToolsListResponse.class, LIST, tools).run(enforcement());

		assertThat(result.forwarded()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"search\","
				+ "\"inputSchema\":{\"type\":\"object\"},\"x-extra\":1.50}]}}");
	}

	@Test
	void aServerWithoutListsIsNotTouched() {
		TestResult result = InterceptorTestKit.forServer("jira")
			.request(ToolsCallRequest.class, call(1, "secret_admin", "{}"))
			.run(enforcement());

		assertThat(result.proceeded()).isTrue();
		assertThat(result.changed()).isFalse();
	}

	@Test
	void injectedArgumentsComeFromTheCallerAndTheConfigurationAndWinOverTheClients() {
		TestResult result = github.request(ToolsCallRequest.class, call(2, "search", "{\"q\":\"x\",\"region\":\"us\"}"))
			.run(new ArgumentPolicy(PROPERTIES));

		assertThat(result.forwarded()).isEqualTo(
				"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":"
						+ "{\"q\":\"x\",\"region\":\"eu\",\"_tenant\":\"acme\"}}}");
	}

	@Test
	void aClientThatSendsAReservedArgumentIsRefused() {
		TestResult result = github.request(ToolsCallRequest.class, call(3, "search", "{\"_tenant\":\"other\"}"))
			.run(new ArgumentPolicy(PROPERTIES));

		assertThat(result.rejected()).isTrue();
		assertThat(result.error().code()).isEqualTo(-32602);
		assertThat(result.error().getMessage()).contains("_tenant");
	}

	private static String call(int id, String tool, String arguments) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
				+ "\",\"arguments\":" + arguments + "}}";
	}

}
