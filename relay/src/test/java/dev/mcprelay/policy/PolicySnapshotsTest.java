package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.mock.env.MockEnvironment;

import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.intercept.CallConfiguration;
import dev.mcprelay.interceptors.PolicyEnforcement;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.test.InterceptorTestKit;
import dev.mcprelay.test.TestMessage;
import dev.mcprelay.testsupport.BoundProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The policies as a part of each configuration snapshot ({@link PolicyCompiler}): a reload compiles only the rules
 * whose expression or tool lists changed, a server it adds is governed from its first request, and a request decides
 * on its own snapshot's policies whatever snapshot is current by then.
 */
class PolicySnapshotsTest {

	private static final Map<String, String> RUNNING = Map.of("security.mode", "none",
			"servers.alpha.url", "http://127.0.0.1:1/mcp",
			"servers.alpha.tools.deny[0]", "secret_*",
			"policies[0].name", "read-only", "policies[0].servers[0]", "*",
			"policies[0].allow", "mcp.method != \"tools/call\" || mcp.tool.name.startsWith(\"get_\")",
			"policies[1].name", "no-prod", "policies[1].servers[0]", "alpha",
			"policies[1].deny", "mcp.tool.name == \"deploy_prod\"");

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final PolicyCompiler compiler = new PolicyCompiler(registry,
			new StaticListableBeanFactory().getBeanProvider(LiveConfiguration.class));

	@Test
	void aReloadCompilesOnlyWhatChangedAndGovernsAServerItAddsFromItsFirstRequest() {
		LiveConfiguration live = new LiveConfiguration(BoundProperties.of(RUNNING), new MockEnvironment(),
				List.of(compiler));
		Policies before = compiler.of(live.current());
		assertThat(declaredServers()).containsOnly("alpha");

		Map<String, String> edited = new HashMap<>(RUNNING);
		edited.put("policies[1].deny", "mcp.tool.name == \"deploy_production\"");
		edited.put("servers.beta.url", "http://127.0.0.1:2/mcp");
		Policies after = compiler.of(live.apply(BoundProperties.of(edited)));

		assertThat(after).as("a new engine for the new snapshot").isNotSameAs(before);
		assertThat(rule(after, "read-only")).as("an unchanged policy's compiled program is the previous snapshot's")
			.isSameAs(rule(before, "read-only"));
		assertThat(rule(after, "servers.alpha.tools")).as("so are unchanged tool lists")
			.isSameAs(rule(before, "servers.alpha.tools"));
		assertThat(rule(after, "no-prod")).as("a changed policy is compiled anew").isNotSameAs(rule(before, "no-prod"));
		assertThat(after.governs("beta", null)).as("the server the reload added, by the policy of *").isTrue();
		assertThat(declaredServers()).as("its meters declared at 0 as the snapshot was compiled")
			.containsOnly("alpha", "beta");
	}

	/** The servers the decisions of policy read-only are counted for. */
	private List<String> declaredServers() {
		return registry.find(PolicyMeters.DECISIONS).tag("policy", "read-only").counters().stream()
			.map(counter -> counter.getId().getTag("server")).distinct().toList();
	}

	@Test
	void aRequestDecidesOnItsOwnSnapshotsPoliciesWhenALaterOneIsCurrent() {
		StaticListableBeanFactory beans = new StaticListableBeanFactory();
		PolicyCompiler policies = new PolicyCompiler(registry, beans.getBeanProvider(LiveConfiguration.class));
		LiveConfiguration live = new LiveConfiguration(BoundProperties.of(Map.of("security.mode", "none",
				"servers.alpha.url", "http://127.0.0.1:1/mcp")), new MockEnvironment(), List.of(policies));
		beans.addBean("live", live);
		ConfigurationSnapshot first = live.current();
		PolicyEnforcement enforcement = new PolicyEnforcement(policies, null,
				beans.getBeanProvider(LiveConfiguration.class), List.of());
		InterceptorTestKit alpha = InterceptorTestKit.forServer("alpha");
		TestMessage<ToolsListResponse> listBefore = alpha.response(ToolsListResponse.class, LIST, TOOLS);
		CallConfiguration.attach(listBefore.view().context(), first);

		ConfigurationSnapshot second = live.apply(BoundProperties.of(Map.of("security.mode", "none",
				"servers.alpha.url", "http://127.0.0.1:1/mcp", "servers.alpha.tools.deny[0]", "secret_admin")));

		assertThat(listBefore.run(enforcement).forwarded()).as("the list of a request that began before the edit")
			.contains("secret_admin");
		TestMessage<ToolsListResponse> listAfter = alpha.response(ToolsListResponse.class, LIST, TOOLS);
		CallConfiguration.attach(listAfter.view().context(), second);
		assertThat(listAfter.run(enforcement).forwarded()).as("the next request's").doesNotContain("secret_admin")
			.contains("echo");
		TestMessage<ToolsCallRequest> callAfter = alpha.request(ToolsCallRequest.class,
				"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"secret_admin\"}}");
		CallConfiguration.attach(callAfter.view().context(), second);
		assertThat(callAfter.run(enforcement).rejected()).isTrue();
	}

	private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";

	private static final String TOOLS = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"echo\","
			+ "\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"secret_admin\",\"inputSchema\":{\"type\":\"object\"}}]}}";

	/** The compiled rule of the policy {@code name} in {@code policies}. */
	private static PolicyRule rule(Policies policies, String name) {
		return policies.policies().stream().filter(policy -> policy.name().equals(name)).map(Policy::rule).findFirst()
			.orElseThrow(() -> new AssertionError("no policy " + name));
	}

}
