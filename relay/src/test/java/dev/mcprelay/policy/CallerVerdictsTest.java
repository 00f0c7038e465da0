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
 * What the rules say of the messages one caller sends naming one item is worked out once per caller, kind and item
 * ({@link CallerVerdicts}), and decides exactly as running each rule on each message would: the same caller object
 * sends messages that differ in their headers, arguments, tools, the definitions published for them, prompts and
 * resources, and every decision is that of every rule run on the message.
 */
class CallerVerdictsTest {

	/** bench/cost.sh's policy_args. */
	private static final List<String> TEN = List.of("deny:mcp.tool.name == \"drop_database\"",
			"deny:mcp.tool.name.startsWith(\"admin_\") && caller.kind != \"jwt\"",
			"deny:mcp.arguments.?message.orValue(\"\") == \"rm -rf /\"",
			"allow:mcp.method != \"tools/call\" || mcp.tool.name in [\"echo\", \"search\", \"get\"]",
			"deny:request.headers[?\"x-blocked\"].orValue(\"\") == \"yes\"", "deny:server.virtual == \"quarantine\"",
			"deny:mcp.direction == \"server_to_client\" && mcp.method == \"sampling/createMessage\"",
			"deny:mcp.prompt.name == \"leak_secrets\"", "deny:mcp.resource.uri.startsWith(\"file:///etc/\")",
			"allow:caller.kind == \"anonymous\" || caller.scopes.exists(s, s == \"mcp\")");

	/** Rules on the caller's claims, a tool's published annotations, and both with headers and resources. */
	private static final List<String> MORE = List.of(
			"deny:mcp.method == \"tools/call\" && !mcp.tool.annotations.?readOnlyHint.orValue(false) && caller.kind != \"jwt\"",
			"deny:has(caller.claims.groups) && \"contractors\" in caller.claims.groups && mcp.tool.name == \"echo\"",
			"deny:mcp.tool.annotations.destructiveHint == true && request.headers[?\"x-confirm\"].orValue(\"\") != \"yes\"",
			"deny:caller.id == \"eve\" && mcp.resource.uri.startsWith(\"secret://\")",
			"deny:caller.claims.tier == \"free\" && mcp.method == \"prompts/get\"");

	@Test
	void theRulesTheCallerAndTheToolDecideAreKeptAndThoseOnHeadersAndArgumentsRunOnEachCall() {
		List<Policy> governing = policies(TEN);
		PolicyFacts call = facts(Caller.ANONYMOUS, "tools/call", false, "echo", Map.of(), null, null,
				Map.of("message", "hi"), Map.of());

		RuleVerdict[] fixed = new CallerVerdicts().of(governing, call, new CallVerdicts().kept(governing, call));

		List<Integer> kept = new ArrayList<>();
		for (int i = 0; i < fixed.length; i++) {
			if (fixed[i] != null) {
				kept.add(i);
			}
		}
		assertThat(kept).as("all but the arguments' and the header's").containsExactly(0, 1, 3, 5, 6, 7, 8, 9);
		assertThat(fixed[3]).isEqualTo(RuleVerdict.TRUE);
		assertThat(fixed[9]).isEqualTo(RuleVerdict.TRUE);
		assertThat(fixed[0]).isEqualTo(RuleVerdict.FALSE);
	}

	@Test
	void keptVerdictsDecideAsRunningEveryRuleForTheSameCallerObjectOverManyMessages() {
		List<String> rules = new ArrayList<>(TEN);
		rules.addAll(MORE);
		List<Policy> governing = policies(rules);
		Policies kept = new Policies(governing, new PolicyMeters(new SimpleMeterRegistry()));
		List<Caller> callers = List.of(Caller.ANONYMOUS, Caller.apiKey("bot"),
				Caller.token("alice", Set.of("mcp"), Map.of("groups", List.of("staff"), "tier", "paid")),
				Caller.token("bob", Set.of("mcp"), Map.of("groups", List.of("contractors"))),
				Caller.token("eve", Set.of(), Map.of("tier", "free")));
		List<Map<String, Object>> definitions = List.of(Map.of(), Map.of("readOnlyHint", true),
				Map.of("readOnlyHint", false, "destructiveHint", true));
		// twice over, so that the second pass decides from what the first kept
		for (int pass = 0; pass < 2; pass++) {
			for (Caller caller : callers) {
				List<PolicyFacts> messages = new ArrayList<>();
				for (String tool : List.of("echo", "drop_database", "admin_x", "get", "other")) {
					for (Map<String, Object> annotations : definitions) {
						for (Map<String, List<String>> headers : List.of(Map.<String, List<String>>of(),
								Map.of("X-Blocked", List.of("yes")), Map.of("X-Confirm", List.of("yes")))) {
							messages.add(facts(caller, "tools/call", false, tool, annotations, null, null,
									Map.of("message", "rm -rf /"), headers));
							messages.add(facts(caller, "tools/call", false, tool, annotations, null, null, Map.of(),
									headers));
						}
					}
					messages.add(facts(caller, "tools/call", false, tool, null, null, null, Map.of(), Map.of()));
				}
				for (String prompt : List.of("leak_secrets", "fine")) {
					messages.add(facts(caller, "prompts/get", false, null, null, prompt, null, Map.of(), Map.of()));
				}
				for (String uri : List.of("file:///etc/passwd", "secret://x", "docs://a")) {
					messages.add(facts(caller, "resources/read", false, null, null, null, uri, null, Map.of()));
				}
				messages.add(facts(caller, "sampling/createMessage", true, null, null, null, null, null, Map.of()));
				messages.add(facts(caller, "roots/list", true, null, null, null, null, null, Map.of()));
				for (PolicyFacts message : messages) {
					PolicyDecision everyRule = PolicyEvaluation.combine(governing,
							(index, policy) -> policy.rule().evaluate(message, message.variables(), true),
							(policy, verdict) -> {
							}).decision();
					assertThat(kept.decide(message)).as("pass %d: %s", pass, message).isEqualTo(everyRule);
				}
			}
		}
	}

	/**
	 * A tool's published definition is part of what the verdicts are kept by: the server published it again otherwise
	 * (after a list_changed) and the same caller's next call is decided from the new one; a tool whose definition the
	 * relay does not know fails a rule that reads it, each time.
	 */
	@Test
	void theSameToolPublishedAnewIsDecidedFromItsNewDefinition() {
		Policies kept = new Policies(
				policies(List.of("allow:mcp.tool.annotations.?readOnlyHint.orValue(false) || mcp.method != \"tools/call\"")),
				new PolicyMeters(new SimpleMeterRegistry()));
		Caller alice = Caller.token("alice", Set.of(), Map.of());

		assertThat(kept.decide(facts(alice, "tools/call", false, "echo", Map.of("readOnlyHint", true), null, null,
				Map.of(), Map.of())).allowed()).isTrue();
		assertThat(kept.decide(facts(alice, "tools/call", false, "echo", Map.of("readOnlyHint", false), null, null,
				Map.of(), Map.of())).allowed()).as("published anew as not read-only").isFalse();
		PolicyDecision unknown = kept.decide(facts(alice, "tools/call", false, "echo", null, null, null, Map.of(),
				Map.of()));
		assertThat(unknown.allowed()).isFalse();
		assertThat(unknown.failed()).as("its definition unknown: the rule fails").isTrue();
	}

	private static PolicyFacts facts(Caller caller, String method, boolean fromServer, String tool,
			Map<String, Object> annotations, String prompt, String resource, Map<String, Object> arguments,
			Map<String, List<String>> headers) {
		return new PolicyFacts(caller, "fast", null, method, fromServer, tool, annotations, prompt, resource, arguments,
				RequestHeaders.of(headers));
	}

	private static List<Policy> policies(List<String> rules) {
		List<Policy> policies = new ArrayList<>();
		for (int i = 0; i < rules.size(); i++) {
			String rule = rules.get(i);
			try {
				policies.add(new Policy("rule-" + i, Set.of("fast"), rule.startsWith("deny:"),
						new CelRule(PolicyEnvironment.compile(rule.substring(rule.indexOf(':') + 1))), true));
			}
			catch (dev.cel.common.CelValidationException ex) {
				throw new AssertionError(ex);
			}
		}
		return policies;
	}

}
