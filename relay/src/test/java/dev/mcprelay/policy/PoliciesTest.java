package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.Caller;
import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.InvalidRelayConfigurationException;
import dev.mcprelay.testsupport.BoundProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The one rule of DESIGN section 12, on the engine alone: a true or failing deny refuses; allows, when a policy governs
 * with one, need one that is true; a listed item is decided with the call's arguments unknown, so a rule that depends
 * on them lists the tool and decides the call; audit-mode policies refuse nothing; a policy governs only its servers
 * (and what reaches them through the virtual servers it names); a bad expression fails start-up with its path, the
 * expression and CEL's message with its position.
 */
class PoliciesTest {

	private static final Caller BOT = Caller.apiKey("bot");

	private static final Caller ALICE = Caller.token("alice", Set.of("mcp"), Map.of("groups", List.of("admins")));

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	@Test
	void aTrueOrFailingDenyRefusesAndAllowsNeedOneThatIsTrue() {
		Policies policies = policies(
				"read-only", "allow", "mcp.tool.annotations.?readOnlyHint.orValue(false) || \"admins\" in caller.claims.groups",
				"no-delete", "deny", "mcp.tool.name.endsWith(\"_delete\")");

		assertThat(policies.decide(call(BOT, "get_file", readOnly(true))).allowed()).isTrue();
		assertThat(policies.decide(call(BOT, "put_file", readOnly(false))))
			.as("no allow is true: refused by the allow").isEqualTo(new PolicyDecision(false, "read-only", true));
		assertThat(policies.decide(call(ALICE, "put_file", readOnly(false))).allowed()).as("an admin").isTrue();
		assertThat(policies.decide(call(ALICE, "repo_delete", readOnly(false))))
			.as("a deny beats every allow").isEqualTo(new PolicyDecision(false, "no-delete", false));
	}

	@Test
	void aRunTimeErrorInAnyGoverningPolicyRefusesEvenBesideATrueAllow() {
		Policies policies = policies(
				"everyone-reads", "allow", "mcp.tool.annotations.?readOnlyHint.orValue(false)",
				"needs-groups", "allow", "\"admins\" in caller.claims.groups");

		assertThat(policies.decide(call(BOT, "get_file", readOnly(true))))
			.as("the bot has no groups claim: that allow fails, and a failure refuses whatever another allow says")
			.isEqualTo(new PolicyDecision(false, "needs-groups", true));
		assertThat(policies.lists(call(BOT, "get_file", readOnly(true)))).as("listed as it would be called").isFalse();
		assertThat(policies.decide(call(ALICE, "get_file", readOnly(true))).allowed()).isTrue();
		assertThat(policies.decide(call(ALICE, "put_file", readOnly(false))).allowed()).as("one true allow opens")
			.isTrue();
	}

	@Test
	void aRuleOnArgumentsListsTheToolAndDecidesTheCall() {
		Policies policies = policies("no-prod", "deny",
				"mcp.method == \"tools/call\" && mcp.tool.name == \"deploy\" && mcp.arguments.env == \"prod\"");
		PolicyFacts listed = call(BOT, "deploy", Map.of());

		assertThat(policies.lists(listed)).as("its outcome is unknown without the arguments: listed").isTrue();
		assertThat(policies.decide(listed.withArguments(Map.of("env", "prod"))).allowed()).isFalse();
		assertThat(policies.decide(listed.withArguments(Map.of("env", "dev"))).allowed()).isTrue();
		assertThat(policies.decide(listed.withArguments(Map.of())).allowed())
			.as("an argument the call does not carry is an error: refused").isFalse();

		Policies optional = policies("no-prod", "deny",
				"mcp.tool.name == \"deploy\" && mcp.arguments.?env.orValue(\"\") == \"prod\"");
		assertThat(optional.lists(listed)).as("an optional argument, unknown while listed: listed").isTrue();
		assertThat(optional.decide(listed.withArguments(Map.of("env", "prod"))).allowed()).isFalse();
		assertThat(optional.decide(listed.withArguments(Map.of())).allowed()).as("absent: its default").isTrue();
		Policies claim = policies("admins", "allow",
				"\"admins\" in caller.claims.groups && mcp.arguments.?env.orValue(\"\") != \"prod\"");
		assertThat(claim.lists(listed)).as("an error that does not come from the arguments still hides").isFalse();
	}

	@Test
	void aMissingClaimIsAnErrorThatRefusesAndIsCounted() {
		Policies policies = policies("admins", "allow", "\"admins\" in caller.claims.groups");

		assertThat(policies.decide(call(BOT, "echo", Map.of()))).isEqualTo(new PolicyDecision(false, "admins", true));
		assertThat(counted("admins", "error")).isEqualTo(1);
		assertThat(policies.lists(call(BOT, "echo", Map.of()))).as("left out of a list").isFalse();
		assertThat(counted("admins", "error")).isEqualTo(2);
		assertThat(counted("admins", "denied") + counted("admins", "hidden"))
			.as("one outcome per decision (docs/operations.md): an error, not a refusal too").isZero();
	}

	private double counted(String policy, String outcome) {
		io.micrometer.core.instrument.Counter counter = registry.find(PolicyMeters.DECISIONS).tag("policy", policy)
			.tag("outcome", outcome).counter();
		return counter == null ? 0 : counter.count();
	}

	/**
	 * One outcome per decision (cold review B, finding 4): a call refused by an earlier rule (here a failing one) is
	 * that rule's alone, no later policy evaluated, audit-mode ones included; an audit-mode failure is an error, not
	 * an audit too; an item of a list is counted once, by the rule that hid it.
	 */
	@Test
	void eachDecisionCountsOneOutcome() {
		Policies policies = new Policies(List.of(
				policy("ro", true, "mcp.method == \"tools/call\" && !mcp.tool.annotations.?readOnlyHint.orValue(false)",
						true, "*"),
				policy("grp", true, "mcp.method == \"tools/call\" && !(\"admins\" in caller.claims.groups)", true, "*"),
				policy("aud", true, "mcp.method == \"tools/call\" && caller.claims.dept == \"x\"", false, "*")),
				new PolicyMeters(registry));

		assertThat(policies.decide(call(BOT, "read_file", readOnly(true)))).as("refused by grp's failure")
			.isEqualTo(new PolicyDecision(false, "grp", true));
		assertThat(outcomes()).as("a call refused by grp").isEqualTo(Map.of("grp/error", 1.0));

		assertThat(policies.decide(call(BOT, "delete_file", readOnly(false)))).isEqualTo(new PolicyDecision(false, "ro",
				false));
		assertThat(outcomes()).as("then one refused by ro").isEqualTo(Map.of("grp/error", 1.0, "ro/denied", 1.0));

		PolicyListing listing = policies.listing(call(BOT, null, null));
		assertThat(listing.lists(call(BOT, "read_file", readOnly(true)))).isFalse();
		assertThat(listing.lists(call(BOT, "delete_file", readOnly(false)))).isFalse();
		assertThat(outcomes()).as("then a list of both: one outcome an item")
			.isEqualTo(Map.of("grp/error", 2.0, "ro/denied", 1.0, "ro/hidden", 1.0));

		Policies audited = new Policies(List.of(
				policy("aud", true, "mcp.method == \"tools/call\" && caller.claims.dept == \"x\"", false, "*")),
				new PolicyMeters(registry));
		registry.clear();
		assertThat(audited.decide(call(BOT, "read_file", readOnly(true))).allowed()).isTrue();
		assertThat(outcomes()).as("an audit-mode failure: an error only").isEqualTo(Map.of("aud/error", 1.0));
	}

	/** Every non-zero count of the decisions meter, as policy/outcome. */
	private Map<String, Double> outcomes() {
		Map<String, Double> counts = new java.util.TreeMap<>();
		registry.find(PolicyMeters.DECISIONS).counters().forEach(counter -> {
			if (counter.count() > 0) {
				counts.put(counter.getId().getTag("policy") + "/" + counter.getId().getTag("outcome"), counter.count());
			}
		});
		return counts;
	}

	@Test
	void auditModeRefusesNothingAndCountsWhatItWouldRefuse() {
		Policies policies = new Policies(List.of(policy("watch", true, "mcp.tool.name == \"echo\"", false, "*")),
				new PolicyMeters(registry));

		assertThat(policies.decide(call(BOT, "echo", Map.of())).allowed()).isTrue();
		assertThat(registry.find(PolicyMeters.DECISIONS).tag("policy", "watch").tag("outcome", "audited").counter()
			.count()).isEqualTo(1);
	}

	@Test
	void aFailureIsLoggedAsWhatItMadeOfTheMessage() {
		Policies policies = new Policies(List.of(policy("audited-groups", false, "\"admins\" in caller.claims.groups",
				false, "*"), policy("enforced-groups", false, "\"ops\" in caller.claims.groups", true, "*")),
				new PolicyMeters(registry));
		int mark = dev.mcprelay.testsupport.CapturedLogs.all().size();

		assertThat(policies.decide(call(BOT, "echo", Map.of())).allowed()).isFalse();
		assertThat(policies.lists(call(BOT, "other", Map.of()))).isFalse();
		List<String> logged = dev.mcprelay.testsupport.CapturedLogs.since(mark);
		assertThat(logged).as("an enforced policy that fails refuses, and says so")
			.anyMatch(line -> line.contains("'enforced-groups' failed at run time (attribute_not_found), the request "
					+ "was refused"));

		Policies audit = new Policies(List.of(policy("only-audited-groups", false,
				"\"admins\" in caller.claims.groups", false, "*")), new PolicyMeters(registry));
		assertThat(audit.decide(call(BOT, "echo", Map.of())).allowed()).isTrue();
		assertThat(dev.mcprelay.testsupport.CapturedLogs.since(mark)).as("an audit-mode policy refuses nothing")
			.anyMatch(line -> line.contains("'only-audited-groups' failed at run time (attribute_not_found), audit mode: "
					+ "nothing was refused"))
			.noneMatch(line -> line.contains("only-audited-groups' failed at run time")
					&& line.contains("the request was refused"));
	}

	@Test
	void anAuditModePolicyThatWouldHideAnItemIsCountedEachTimeAndLoggedOncePerItemAndCaller() {
		Policies policies = new Policies(List.of(policy("watch-listing", true, "mcp.tool.name == \"echo\"", false, "*")),
				new PolicyMeters(registry));
		PolicyFacts list = call(BOT, null, null);
		int mark = dev.mcprelay.testsupport.CapturedLogs.all().size();

		for (int i = 0; i < 3; i++) {
			PolicyListing listing = policies.listing(list);
			assertThat(listing.lists(list.forItem("echo", Map.of(), null, null))).as("audit mode hides nothing").isTrue();
			assertThat(listing.lists(list.forItem("other", Map.of(), null, null))).isTrue();
		}
		assertThat(policies.lists(call(ALICE, "echo", Map.of()))).isTrue();

		assertThat(registry.find(PolicyMeters.DECISIONS).tag("policy", "watch-listing").tag("outcome", "audited")
			.counter().count()).as("every list that would have hidden it").isEqualTo(4);
		assertThat(dev.mcprelay.testsupport.CapturedLogs.since(mark))
			.filteredOn(line -> line.contains("'watch-listing' (audit mode) would leave \"echo\" out of lists"))
			.as("once per item and caller").hasSize(2);
	}

	/**
	 * Review 43e F5: the audit line names a resource without its query, fragment or userinfo, where a token or a
	 * password rides; the rest of the URI is there, so the operator still sees which resource.
	 */
	@Test
	void anAuditLineNamesAResourceWithoutItsQueryFragmentOrUserinfo() {
		Policies policies = new Policies(List.of(policy("audit-secret-res", true,
				"mcp.resource.uri.startsWith(\"res://secret/\") || mcp.resource.uri.contains(\"/private\")", false,
				"*")), new PolicyMeters(registry));
		int mark = dev.mcprelay.testsupport.CapturedLogs.all().size();

		for (String uri : List.of("res://secret/b?token=URISECRET31", "res://secret/c#URISECRET32",
				"https://user:URISECRET33@host.example/private/d?sig=URISECRET34")) {
			assertThat(policies.decide(new PolicyFacts(BOT, "github", null, "resources/read", false, null, null, null,
					uri, null, null)).allowed()).as(uri).isTrue();
		}
		List<String> logged = dev.mcprelay.testsupport.CapturedLogs.since(mark);
		assertThat(logged).anyMatch(line -> line.contains("would refuse resources/read of \"res://secret/b\""))
			.anyMatch(line -> line.contains("would refuse resources/read of \"res://secret/c\""))
			.anyMatch(line -> line.contains("would refuse resources/read of \"https://host.example/private/d\""))
			.noneMatch(line -> line.contains("URISECRET"));
	}

	@Test
	void aPolicyGovernsItsServersAndWhatReachesThemThroughItsVirtualServers() {
		Policies policies = new Policies(List.of(policy("all-only", true, "true", true, "all")), new PolicyMeters(registry));

		assertThat(policies.decide(facts(BOT, "github", null, "echo")).allowed()).as("addressed directly").isTrue();
		assertThat(policies.decide(facts(BOT, "github", "all", "echo")).allowed()).as("through 'all'").isFalse();
		assertThat(policies.governsAny("github", List.of("all"))).isTrue();
		assertThat(policies.governsAny("github", List.of("other"))).isFalse();
	}

	@Test
	void aBadExpressionFailsStartUpWithItsPathTheExpressionAndCelsMessage() {
		Map<String, String> keys = new HashMap<>();
		keys.put("security.mode", "none");
		keys.put("servers.github.url", "https://example.com/mcp");
		keys.put("policies[0].name", "typo");
		keys.put("policies[0].servers[0]", "github");
		keys.put("policies[0].allow", "mcp.tool.nmae == \"x\"");
		keys.put("policies[1].name", "not-bool");
		keys.put("policies[1].servers[0]", "nope");
		keys.put("policies[1].deny", "1 + 1");
		keys.put("policies[2].name", "typo");
		keys.put("policies[2].servers[0]", "*");

		assertThatThrownBy(() -> PolicyCompiler.compile(BoundProperties.of(keys)))
			.isInstanceOfSatisfying(InvalidRelayConfigurationException.class, invalid -> {
				assertThat(invalid.problems()).extracting(ConfigurationProblem::property)
					.containsExactlyInAnyOrder("mcp-relay.policies[0].allow", "mcp-relay.policies[1].servers[0]",
							"mcp-relay.policies[1].deny", "mcp-relay.policies[2].name", "mcp-relay.policies[2]");
				assertThat(invalid.problems().get(0).problem()).contains("mcp.tool.nmae").contains("undefined field 'nmae'")
					.contains("1:9");
			});
	}

	@Test
	void requestHeadersNeverHoldACredentialInAnyMode() {
		Policies policies = policies("sees-credentials", "deny", "[\"authorization\", \"proxy-authorization\", "
				+ "\"cookie\", \"x-api-key\"].exists(name, name in request.headers)");
		dev.mcprelay.api.RequestHeaders headers = dev.mcprelay.api.RequestHeaders.of(Map.of("Authorization",
				List.of("Bearer alice-token"), "Proxy-Authorization", List.of("Basic cHJveHk="), "Cookie",
				List.of("session=s1"), "X-Api-Key", List.of("alice-key-0000"), "X-Tenant", List.of("acme")));
		PolicyFacts facts = new PolicyFacts(Caller.ANONYMOUS, "github", null, "tools/call", false, "echo", Map.of(),
				null, null, Map.of(), headers);

		assertThat(policies.decide(facts).allowed()).as("none of them is in request.headers").isTrue();
		assertThat(policies("tenant", "allow", "request.headers[\"x-tenant\"] == \"acme\"").decide(facts).allowed())
			.as("other headers are").isTrue();
	}

	@Test
	void aRunTimeErrorIsLoggedByItsKindNeverWithTheValuesCelQuotes() {
		Policies policies = policies("numeric-tenant", "allow", "int(request.headers[\"x-tenant\"]) > 0");
		PolicyFacts facts = new PolicyFacts(Caller.ANONYMOUS, "github", null, "tools/call", false, "echo", Map.of(),
				null, null, Map.of(), dev.mcprelay.api.RequestHeaders.of(Map.of("X-Tenant",
						List.of("alice-secret-value"))));
		int mark = dev.mcprelay.testsupport.CapturedLogs.all().size();

		assertThat(policies.decide(facts)).isEqualTo(new PolicyDecision(false, "numeric-tenant", true));
		List<String> logged = dev.mcprelay.testsupport.CapturedLogs.since(mark);
		assertThat(logged).as("the failure is logged, with the policy's name").anyMatch(line -> line.contains("numeric-tenant"));
		assertThat(logged).as("never with a value CEL quotes in its message").noneMatch(line -> line.contains("alice-secret"));
	}

	/**
	 * Review 43e F2: a deny on a header's value is not passed by sending the header twice, in either order (its lines
	 * were joined, {@code "evil, good"}, and the upstream acted on one of them): the rule's read fails, which refuses
	 * and is counted as an error of the kind {@code conflicting_header}, never with the values; the same value
	 * repeated is that value.
	 */
	@Test
	void aDenyOnAHeaderIsNotPassedByRepeatingTheHeader() {
		Policies policies = policies("tenant-header", "deny",
				"request.headers[?\"x-tenant\"].orValue(\"\") == \"evil\"");
		int mark = dev.mcprelay.testsupport.CapturedLogs.all().size();

		assertThat(policies.decide(withTenant("good")).allowed()).as("good").isTrue();
		assertThat(policies.decide(withTenant("evil"))).as("evil")
			.isEqualTo(new PolicyDecision(false, "tenant-header", false));
		assertThat(policies.decide(withTenant("evil", "evil"))).as("evil twice: evil")
			.isEqualTo(new PolicyDecision(false, "tenant-header", false));
		assertThat(policies.decide(withTenant("good", "good")).allowed()).as("good twice: good").isTrue();
		assertThat(policies.decide(withTenant("evil", "good"))).as("evil, then good")
			.isEqualTo(new PolicyDecision(false, "tenant-header", true));
		assertThat(policies.decide(withTenant("good", "evil"))).as("good, then evil")
			.isEqualTo(new PolicyDecision(false, "tenant-header", true));
		assertThat(counted("tenant-header", "error")).isEqualTo(2);
		List<String> logged = dev.mcprelay.testsupport.CapturedLogs.since(mark);
		assertThat(logged).as("logged by its kind").anyMatch(line -> line.contains("conflicting_header"));
		assertThat(logged).as("never the values").noneMatch(line -> line.contains("evil") || line.contains("good"));

		// review 43f F-C: one line holding commas is one value; the guard policies.md gives for an upstream that reads
		// the header as a list refuses it
		assertThat(policies.decide(withTenant("evil, good")).allowed()).as("one value, \"evil, good\"").isTrue();
		Policies guarded = policies("tenant-list", "deny", "request.headers[?\"x-tenant\"].orValue(\"\") == \"evil\" "
				+ "|| request.headers[?\"x-tenant\"].orValue(\"\").contains(\",\")");
		assertThat(guarded.decide(withTenant("evil, good")).allowed()).isFalse();
		assertThat(guarded.decide(withTenant("good")).allowed()).isTrue();
	}

	private static PolicyFacts withTenant(String... lines) {
		return new PolicyFacts(Caller.ANONYMOUS, "github", null, "tools/call", false, "echo", Map.of(), null, null,
				Map.of(), dev.mcprelay.api.RequestHeaders.of(Map.of("X-Tenant", List.of(lines))));
	}

	private Policies policies(String... nameKindExpression) {
		List<Policy> list = new java.util.ArrayList<>();
		for (int i = 0; i < nameKindExpression.length; i += 3) {
			list.add(policy(nameKindExpression[i], nameKindExpression[i + 1].equals("deny"), nameKindExpression[i + 2],
					true, "*"));
		}
		return new Policies(list, new PolicyMeters(registry));
	}

	private static Policy policy(String name, boolean denies, String expression, boolean enforced, String server) {
		try {
			return new Policy(name, Set.of(server), denies, new CelRule(PolicyEnvironment.compile(expression)), enforced);
		}
		catch (dev.cel.common.CelValidationException ex) {
			throw new AssertionError(ex);
		}
	}

	private static Map<String, Object> readOnly(boolean readOnly) {
		return Map.of("readOnlyHint", readOnly);
	}

	private static PolicyFacts call(Caller caller, String tool, Map<String, Object> annotations) {
		return new PolicyFacts(caller, "github", null, "tools/call", false, tool, annotations, null, null, null, null);
	}

	private static PolicyFacts facts(Caller caller, String server, String virtual, String tool) {
		return new PolicyFacts(caller, server, virtual, "tools/call", false, tool, Map.of(), null, null, Map.of(), null);
	}

}
