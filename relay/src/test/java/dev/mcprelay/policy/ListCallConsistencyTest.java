package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.Caller;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The contract of DESIGN section 12 over generated cases: for any policy set, caller and tool, a tool that is not
 * listed is refused whatever the arguments, and a listed tool can be called with some arguments. Policy sets are drawn
 * from rules over the tool's name and annotations, the caller, the request's headers and the call's arguments, as
 * allows and denies, enforced and audited, some failing at run time (a claim a caller lacks); the seed is printed and
 * can be replayed with {@code -Dpolicies.seed}. A whole list ({@link Policies#listing}, which decides some rules once
 * for every item) lists exactly what each item decided alone would.
 */
class ListCallConsistencyTest {

	private static final List<String> ATOMS = List.of(
			"mcp.tool.name == \"deploy\"",
			"mcp.tool.name.startsWith(\"admin_\")",
			"mcp.tool.name.endsWith(\"_delete\")",
			"mcp.tool.annotations.?readOnlyHint.orValue(false)",
			"mcp.tool.annotations.?destructiveHint.orValue(true)",
			"mcp.tool.annotations.readOnlyHint",
			"caller.kind == \"api_key\"",
			"caller.id == \"alice\"",
			"\"admins\" in caller.claims.groups",
			"\"admins\" in caller.claims.?groups.orValue([])",
			"caller.scopes.exists(s, s == \"mcp:write\")",
			"request.headers[?\"x-env\"].orValue(\"\") == \"prod\"",
			"mcp.arguments.?env.orValue(\"\") == \"prod\"",
			"mcp.arguments.env == \"prod\"",
			"has(mcp.arguments.force) && mcp.arguments.force == true",
			"mcp.method == \"tools/call\"");

	private static final List<Caller> CALLERS = List.of(Caller.apiKey("ci-bot"),
			Caller.token("alice", Set.of("mcp"), Map.of("groups", List.of("admins"))),
			Caller.token("bob", Set.of("mcp", "mcp:write"), Map.of()), Caller.ANONYMOUS);

	private static final Map<String, Map<String, Object>> TOOLS = new LinkedHashMap<>();

	static {
		TOOLS.put("deploy", Map.of("destructiveHint", true));
		TOOLS.put("admin_users", Map.of("readOnlyHint", false));
		TOOLS.put("repo_delete", Map.of("destructiveHint", true, "readOnlyHint", false));
		TOOLS.put("get_issue", Map.of("readOnlyHint", true, "destructiveHint", false));
		TOOLS.put("search", Map.of());
	}

	/** Every combination of the arguments the rules read: env absent, prod or dev; force absent, true or false. */
	private static final List<Map<String, Object>> ARGUMENTS = arguments();

	private static List<Map<String, Object>> arguments() {
		List<Map<String, Object>> all = new ArrayList<>();
		for (String env : new String[] { null, "prod", "dev" }) {
			for (Boolean force : new Boolean[] { null, true, false }) {
				Map<String, Object> arguments = new LinkedHashMap<>();
				if (env != null) {
					arguments.put("env", env);
				}
				if (force != null) {
					arguments.put("force", force);
				}
				all.add(arguments);
			}
		}
		return all;
	}

	@Test
	void whatIsListedIsWhatMayBeCalledWithSomeArguments() {
		long seed = Long.getLong("policies.seed", System.nanoTime());
		Random random = new Random(seed);
		int checked = 0;
		for (int set = 0; set < 300; set++) {
			List<Policy> drawn = new ArrayList<>();
			int size = 1 + random.nextInt(4);
			for (int i = 0; i < size; i++) {
				String expression = ATOMS.get(random.nextInt(ATOMS.size()));
				if (random.nextBoolean()) {
					expression = "(" + expression + ") " + (random.nextBoolean() ? "&&" : "||") + " ("
							+ ATOMS.get(random.nextInt(ATOMS.size())) + ")";
				}
				if (random.nextInt(4) == 0) {
					expression = "!(" + expression + ")";
				}
				drawn.add(policy("p" + i, random.nextBoolean(), expression, random.nextInt(5) != 0));
			}
			Policies policies = new Policies(drawn, new PolicyMeters(new SimpleMeterRegistry()));
			for (Caller caller : CALLERS) {
				PolicyFacts list = new PolicyFacts(caller, "github", null, "tools/call", false, null, null, null, null,
						null, headers(random));
				PolicyListing wholeList = policies.listing(list);
				for (Map.Entry<String, Map<String, Object>> tool : TOOLS.entrySet()) {
					PolicyFacts listing = list.forItem(tool.getKey(), tool.getValue(), null, null);
					boolean listed = policies.lists(listing);
					assertThat(wholeList.lists(listing)).as("seed %d, set %d, caller %s, tool %s: a whole list decides "
							+ "as each item alone", seed, set, caller, tool.getKey()).isEqualTo(listed);
					boolean callable = ARGUMENTS.stream()
						.anyMatch(arguments -> policies.decide(listing.withArguments(arguments)).allowed());
					assertThat(callable).as("seed %d, set %d %s, caller %s, tool %s: listed %s", seed, set,
							drawn.stream().map(p -> (p.denies() ? "deny " : "allow ") + p.rule().source()
									+ (p.enforced() ? "" : " (audit)")).toList(),
							caller, tool.getKey(), listed)
						.isEqualTo(listed);
					checked++;
				}
			}
		}
		assertThat(checked).isEqualTo(300 * CALLERS.size() * TOOLS.size());
	}

	private static dev.mcprelay.api.RequestHeaders headers(Random random) {
		Map<String, List<String>> headers = random.nextBoolean() ? Map.of("X-Env", List.of("prod")) : Map.of();
		return dev.mcprelay.api.RequestHeaders.of(headers);
	}

	private static Policy policy(String name, boolean denies, String expression, boolean enforced) {
		try {
			return new Policy(name, Set.of("*"), denies, new CelRule(PolicyEnvironment.compile(expression)), enforced);
		}
		catch (dev.cel.common.CelValidationException ex) {
			throw new AssertionError(expression, ex);
		}
	}

}
