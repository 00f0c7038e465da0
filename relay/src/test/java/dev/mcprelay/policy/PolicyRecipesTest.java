package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import dev.mcprelay.api.Caller;
import dev.mcprelay.testsupport.BoundProperties;
import dev.mcprelay.testsupport.RepositoryRoot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The recipes of docs/policies.md hold alone and together: an operator who uses several of them gets what each says,
 * since every policy that governs a message takes part in one decision (DESIGN section 12: allows are alternatives, so
 * an allow of one recipe would open what another closes). Each recipe's policy is checked on cases of what it refuses
 * and lets through, first alone, then with every recipe of the page loaded together; a recipe the cases do not cover
 * fails the test, so that a new recipe comes with its cases.
 */
class PolicyRecipesTest {

	private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

	private static final Caller BOT = Caller.apiKey("ci-bot");

	private static final Caller ALICE = Caller.token("alice", Set.of("mcp"), Map.of("groups", List.of("admins")));

	private static final Caller BOB = Caller.token("bob", Set.of("mcp"), Map.of());

	private static final Map<String, Object> READ_ONLY = Map.of("readOnlyHint", true);

	private static final Map<String, Object> DESTRUCTIVE = Map.of("destructiveHint", true, "readOnlyHint", false);

	/** What a recipe's policy promises, as cases: the message and whether it is allowed. */
	private record Case(String recipe, String what, PolicyFacts facts, boolean allowed) {
	}

	private static final List<Case> CASES = List.of(
			refused("read-only-unless-admin", "bob deletes on github", call(BOB, "github", null, "delete_file", DESTRUCTIVE)),
			refused("read-only-unless-admin", "bob deletes on jira through support",
					call(BOB, "jira", "support", "delete_file", DESTRUCTIVE)),
			allowed("read-only-unless-admin", "bob reads on jira", call(BOB, "jira", null, "get_issue", READ_ONLY)),
			allowed("read-only-unless-admin", "an admin writes on github",
					call(ALICE, "github", null, "create_issue", Map.of())),
			refused("no-destructive-for-keys", "a key calls a tool without annotations",
					call(BOT, "github", null, "create_issue", Map.of())),
			refused("no-destructive-for-keys", "a key deletes through support",
					call(BOT, "jira", "support", "delete_file", DESTRUCTIVE)),
			allowed("no-destructive-for-keys", "a key reads", call(BOT, "github", null, "get_issue", READ_ONLY)),
			refused("no-prod-deletes", "an admin deletes in prod",
					call(ALICE, "github", null, "repo_delete", DESTRUCTIVE).withArguments(Map.of("env", "prod"))),
			allowed("no-prod-deletes", "an admin deletes in dev",
					call(ALICE, "github", null, "repo_delete", DESTRUCTIVE).withArguments(Map.of("env", "dev"))),
			refused("support-tools", "an admin writes on github through support",
					call(ALICE, "github", "support", "create_issue", Map.of())),
			allowed("support-tools", "an admin reads an issue on github through support",
					call(ALICE, "github", "support", "get_issue", READ_ONLY)),
			allowed("support-tools", "an admin writes on jira through support",
					call(ALICE, "jira", "support", "create_ticket", Map.of())),
			allowed("support-tools", "an admin writes on github itself", call(ALICE, "github", null, "create_issue", Map.of())),
			refused("sampling-for-people", "github asks a key's client to sample", sampling(BOT)),
			allowed("sampling-for-people", "github asks a person's client to sample", sampling(ALICE)),
			allowed("public-docs-only", "a public page", read(ALICE, "docs://public/guide/intro")),
			refused("public-docs-only", "a private page", read(ALICE, "docs://private/plans")),
			refused("public-docs-only", "the scheme in capitals", read(ALICE, "DOCS://public/guide")),
			refused("public-docs-only", "a percent-encoded letter", read(ALICE, "docs://public/%67uide")),
			refused("public-docs-only", "a dot segment", read(ALICE, "docs://public/../private/plans")),
			refused("public-docs-only", "a trailing slash", read(ALICE, "docs://public/guide/")));

	@Test
	void everyRecipeHoldsAloneAndWithEveryOtherRecipe() throws IOException {
		List<Map<String, Object>> recipes = recipes();
		Set<String> named = new LinkedHashSet<>();
		recipes.forEach(recipe -> policiesOf(recipe).forEach(policy -> named.add((String) policy.get("name"))));
		assertThat(CASES.stream().map(Case::recipe).distinct().toList()).as("every recipe of the page has its cases")
			.containsExactlyInAnyOrderElementsOf(named);

		Policies together = engine(recipes);
		for (Map<String, Object> recipe : recipes) {
			Policies alone = engine(List.of(recipe));
			String name = (String) policiesOf(recipe).get(0).get("name");
			for (Case promise : CASES.stream().filter(c -> c.recipe().equals(name)).toList()) {
				assertThat(alone.decide(promise.facts()).allowed()).as("%s alone: %s", name, promise.what())
					.isEqualTo(promise.allowed());
				assertThat(together.decide(promise.facts()).allowed()).as("%s with every recipe: %s", name,
						promise.what())
					.isEqualTo(promise.allowed());
			}
		}
	}

	/** The configuration of each recipe of the page's Recipes section, as YAML maps. */
	private static List<Map<String, Object>> recipes() throws IOException {
		String page = Files.readString(RepositoryRoot.resolve("docs/policies.md"));
		String section = page.substring(page.indexOf("## Recipes"));
		List<Map<String, Object>> recipes = new ArrayList<>();
		Matcher block = YAML_BLOCK.matcher(section);
		while (block.find()) {
			Map<String, Object> document = new Yaml().load(block.group(1));
			@SuppressWarnings("unchecked")
			Map<String, Object> relay = (Map<String, Object>) document.get("mcp-relay");
			recipes.add(relay);
		}
		assertThat(recipes).as("the page's recipes").hasSizeGreaterThanOrEqualTo(5);
		return recipes;
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> policiesOf(Map<String, Object> recipe) {
		return (List<Map<String, Object>>) recipe.get("policies");
	}

	/** The engine of {@code recipes} loaded together: their servers, virtual servers and policies, in page order. */
	@SuppressWarnings("unchecked")
	private static Policies engine(List<Map<String, Object>> recipes) {
		Map<String, String> keys = new LinkedHashMap<>();
		keys.put("security.mode", "none");
		int index = 0;
		for (Map<String, Object> recipe : recipes) {
			((Map<String, Map<String, Object>>) recipe.get("servers"))
				.forEach((id, server) -> keys.put("servers." + id + ".url", (String) server.get("url")));
			Map<String, Map<String, Object>> virtual = (Map<String, Map<String, Object>>) recipe
				.getOrDefault("virtual-servers", Map.of());
			virtual.forEach((id, server) -> {
				List<String> members = (List<String>) server.get("members");
				for (int i = 0; i < members.size(); i++) {
					keys.put("virtual-servers." + id + ".members[" + i + "]", members.get(i));
				}
			});
			for (Map<String, Object> policy : policiesOf(recipe)) {
				String at = "policies[" + index++ + "].";
				policy.forEach((field, value) -> {
					if (value instanceof List<?> list) {
						for (int i = 0; i < list.size(); i++) {
							keys.put(at + field + "[" + i + "]", String.valueOf(list.get(i)));
						}
					}
					else {
						keys.put(at + field, String.valueOf(value));
					}
				});
			}
		}
		return new Policies(PolicyCompiler.compile(BoundProperties.of(keys)), new PolicyMeters(new SimpleMeterRegistry()));
	}

	private static Case refused(String recipe, String what, PolicyFacts facts) {
		return new Case(recipe, what, facts, false);
	}

	private static Case allowed(String recipe, String what, PolicyFacts facts) {
		return new Case(recipe, what, facts, true);
	}

	private static PolicyFacts call(Caller caller, String server, String virtual, String tool,
			Map<String, Object> annotations) {
		return new PolicyFacts(caller, server, virtual, "tools/call", false, tool, annotations, null, null, Map.of(),
				null);
	}

	private static PolicyFacts read(Caller caller, String uri) {
		return new PolicyFacts(caller, "docs", null, "resources/read", false, null, null, null, uri, null, null);
	}

	private static PolicyFacts sampling(Caller caller) {
		return new PolicyFacts(caller, "github", null, "sampling/createMessage", true, null, null, null, null, null, null);
	}

}
