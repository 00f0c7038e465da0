package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.Caller;
import dev.mcprelay.api.RequestHeaders;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * What the rules say of every message of a kind is worked out once ({@link CallVerdicts}), and decides exactly as
 * running each rule on each message would: the rules of bench/cost.sh's ten policies that read only the server, the
 * method and the direction, or an item field a tools/call leaves empty, are kept; those that read the caller, the
 * headers, the tool or the arguments are run on each call.
 */
class CallVerdictsTest {

	/** bench/cost.sh's policy_args. */
	private static final List<String> TEN = List.of("deny:mcp.tool.name == \"drop_database\"",
			"deny:mcp.tool.name.startsWith(\"admin_\") && caller.kind != \"jwt\"",
			"deny:mcp.arguments.?message.orValue(\"\") == \"rm -rf /\"",
			"allow:mcp.method != \"tools/call\" || mcp.tool.name in [\"echo\", \"search\", \"get\"]",
			"deny:request.headers[?\"x-blocked\"].orValue(\"\") == \"yes\"", "deny:server.virtual == \"quarantine\"",
			"deny:mcp.direction == \"server_to_client\" && mcp.method == \"sampling/createMessage\"",
			"deny:mcp.prompt.name == \"leak_secrets\"", "deny:mcp.resource.uri.startsWith(\"file:///etc/\")",
			"allow:caller.kind == \"anonymous\" || caller.scopes.exists(s, s == \"mcp\")");

	@Test
	void theRulesNoCallCanChangeAreKeptAndTheOthersRunOnEachCall() {
		List<Policy> governing = policies(TEN);
		PolicyFacts call = facts(Caller.ANONYMOUS, "tools/call", false, "echo", null, null, Map.of("message", "hi"),
				Map.of());

		RuleVerdict[] fixed = new CallVerdicts().of(governing, call);

		List<Integer> kept = new ArrayList<>();
		for (int i = 0; i < fixed.length; i++) {
			if (fixed[i] != null) {
				kept.add(i);
				assertThat(fixed[i]).as("rule %d", i).isEqualTo(RuleVerdict.FALSE);
			}
		}
		assertThat(kept).as("the server's, the direction's, the empty prompt's and resource's").containsExactly(5, 6, 7,
				8);
		PolicyFacts prompt = facts(Caller.ANONYMOUS, "prompts/get", false, null, "leak_secrets", null, Map.of(),
				Map.of());
		assertThat(new CallVerdicts().of(governing, prompt)[7]).as("a prompts/get names its prompt: run on it")
			.isNull();
	}

	@Test
	void keptVerdictsDecideAsRunningEveryRule() {
		List<Policy> governing = policies(TEN);
		Policies kept = new Policies(governing, new PolicyMeters(new SimpleMeterRegistry()));
		List<PolicyFacts> messages = new ArrayList<>();
		for (Caller caller : List.of(Caller.ANONYMOUS, Caller.apiKey("bot"),
				Caller.token("alice", Set.of("mcp"), Map.of()), Caller.token("eve", Set.of(), Map.of()))) {
			for (String tool : List.of("echo", "drop_database", "admin_x", "other")) {
				for (Map<String, List<String>> headers : List.of(Map.<String, List<String>>of(),
						Map.of("X-Blocked", List.of("yes")))) {
					messages.add(facts(caller, "tools/call", false, tool, null, null, Map.of("message", "rm -rf /"),
							headers));
					messages.add(facts(caller, "tools/call", false, tool, null, null, Map.of(), headers));
				}
			}
			messages.add(facts(caller, "prompts/get", false, null, "leak_secrets", null, Map.of(), Map.of()));
			messages.add(facts(caller, "prompts/get", false, null, "fine", null, Map.of(), Map.of()));
			messages.add(facts(caller, "resources/read", false, null, null, "file:///etc/passwd", null, Map.of()));
			messages.add(facts(caller, "sampling/createMessage", true, null, null, null, null, Map.of()));
			messages.add(facts(caller, "roots/list", true, null, null, null, null, Map.of()));
		}
		for (PolicyFacts message : messages) {
			PolicyDecision everyRule = PolicyEvaluation.combine(governing,
					(index, policy) -> policy.rule().evaluate(message, message.variables(), true), (policy, verdict) -> {
					}).decision();
			assertThat(kept.decide(message)).as("%s", message).isEqualTo(everyRule);
		}
	}

	/**
	 * Whether a server's policies can hide a resource from some caller, so that the policy interceptor must hear its
	 * notifications: not when every rule's verdict on every resources/read there is fixed and refuses nothing.
	 */
	@Test
	void policiesMayHideAResourceUnlessEveryRuleIsFixedOnEveryReadAndRefusesNothing() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		for (String rule : List.of("deny:mcp.tool.name == \"drop_database\"", "deny:mcp.method == \"prompts/get\"",
				"deny:mcp.prompt.name == \"leak_secrets\"", "allow:mcp.method != \"tools/call\" || mcp.tool.name == \"echo\"")) {
			assertThat(new Policies(policies(List.of(rule)), new PolicyMeters(registry)).mayHideResources("fast", null))
				.as(rule).isFalse();
		}
		for (String rule : List.of("deny:mcp.resource.uri.startsWith(\"file:///etc/\")", "deny:caller.kind == \"anonymous\"",
				"deny:request.headers[?\"x-blocked\"].orValue(\"\") == \"yes\"", "deny:mcp.method == \"resources/read\"",
				"allow:mcp.method == \"tools/call\"")) {
			assertThat(new Policies(policies(List.of(rule)), new PolicyMeters(registry)).mayHideResources("fast", null))
				.as(rule).isTrue();
		}
		assertThat(new Policies(policies(TEN), new PolicyMeters(registry)).mayHideResources("fast", null)).isTrue();
		assertThat(new Policies(policies(TEN), new PolicyMeters(registry)).mayHideResources("other", null))
			.as("governing nothing there").isFalse();
	}

	private static PolicyFacts facts(Caller caller, String method, boolean fromServer, String tool, String prompt,
			String resource, Map<String, Object> arguments, Map<String, List<String>> headers) {
		return new PolicyFacts(caller, "fast", null, method, fromServer, tool, tool == null ? null : Map.of(), prompt,
				resource, arguments, RequestHeaders.of(headers));
	}

	private static List<Policy> policies(List<String> rules) {
		List<Policy> policies = new ArrayList<>();
		for (int i = 0; i < rules.size(); i++) {
			String rule = rules.get(i);
			try {
				policies.add(new Policy("bench-" + i, Set.of("fast"), rule.startsWith("deny:"),
						new CelRule(PolicyEnvironment.compile(rule.substring(rule.indexOf(':') + 1))), true));
			}
			catch (dev.cel.common.CelValidationException ex) {
				throw new AssertionError(ex);
			}
		}
		return policies;
	}

}
