package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.testsupport.BoundProperties;
import dev.mcprelay.testsupport.CapturedLogs;

/**
 * Review 43f F-D: a policy whose expression names {@code search_available_tools} on a server (or virtual server) where
 * tool search answers that call itself, before the policies, never applies to it: the relay warns of it, once (a
 * reload that keeps it says nothing again), and only where tool search is on. It does not refuse the configuration.
 */
class PolicyWarningsTest {

	@Test
	void aRuleNamingToolSearchsOwnToolWhereToolSearchAnswersItIsWarnedOfOnce() {
		Map<String, String> keys = new HashMap<>();
		keys.put("security.mode", "none");
		keys.put("servers.searched.url", "https://example.com/mcp");
		keys.put("servers.searched.tool-search.enabled", "true");
		keys.put("servers.plain.url", "https://example.com/other");
		keys.put("policies[0].name", "no-search-for-bot");
		keys.put("policies[0].servers[0]", "searched");
		keys.put("policies[0].deny", "mcp.tool.name == \"search_available_tools\" && caller.id == \"bot\"");
		keys.put("policies[1].name", "plain-search");
		keys.put("policies[1].servers[0]", "plain");
		keys.put("policies[1].deny", "mcp.tool.name == \"search_available_tools\"");
		keys.put("policies[2].name", "other");
		keys.put("policies[2].servers[0]", "*");
		keys.put("policies[2].deny", "mcp.tool.name == \"rm\"");
		RelayProperties properties = BoundProperties.of(keys);
		List<Policy> compiled = PolicyCompiler.compile(properties);
		int mark = CapturedLogs.all().size();

		Set<List<String>> warned = PolicyWarnings.onRelayOwnTool(compiled, properties, Set.of());
		List<String> logged = CapturedLogs.since(mark);
		assertThat(warned).containsExactly(List.of("", "search_available_tools", "no-search-for-bot"));
		assertThat(logged).filteredOn(line -> line.contains("search_available_tools")).hasSize(1)
			.allMatch(line -> line.contains("'no-search-for-bot'") && line.contains("server 'searched'"));

		int again = CapturedLogs.all().size();
		assertThat(PolicyWarnings.onRelayOwnTool(compiled, properties, warned)).isEqualTo(warned);
		assertThat(CapturedLogs.since(again)).as("a reload that keeps it").noneMatch(line -> line.contains("search_available_tools"));
	}

	/**
	 * Review 43g N-2: what CEL reads, not how it is spelt. Three spellings of the name are one name to CEL and are each
	 * warned of; so are a rule that takes it in by a prefix and an allow that leaves it out of its list (either would
	 * refuse a search, and never applies to one); not a rule that leaves the tool alone, names another, or reads no
	 * name.
	 */
	@Test
	void whatARuleSaysOfTheSearchToolIsDecidedFromTheCheckedExpressionNotItsSpelling() {
		Map<String, String> keys = new HashMap<>();
		keys.put("security.mode", "none");
		keys.put("servers.searched.url", "https://example.com/mcp");
		keys.put("servers.searched.tool-search.enabled", "true");
		String[][] rules = { { "plain", "deny", "mcp.tool.name == \"search_available_tools\" && caller.id == \"bot\"" },
				{ "concat", "deny", "mcp.tool.name == \"search_available\" + \"_tools\" && caller.id == \"bot\"" },
				{ "escape", "deny", "mcp.tool.name == \"search\\u005favailable_tools\" && caller.id == \"bot\"" },
				{ "prefix", "deny", "mcp.tool.name.startsWith(\"search_\")" },
				{ "allow-list", "allow", "mcp.tool.name in [\"read_file\", \"write_file\"]" },
				{ "leaves-it-alone", "deny", "mcp.tool.name != \"search_\" + \"available_tools\" && caller.id == \"bot\"" },
				{ "allows-it", "allow", "mcp.tool.name == \"search_available_tools\" || caller.id == \"admin\"" },
				{ "another-tool", "deny", "mcp.tool.name == \"rm\"" }, { "no-name", "deny", "caller.id == \"bot\"" } };
		for (int i = 0; i < rules.length; i++) {
			keys.put("policies[" + i + "].name", rules[i][0]);
			keys.put("policies[" + i + "].servers[0]", "searched");
			keys.put("policies[" + i + "]." + rules[i][1], rules[i][2]);
		}
		RelayProperties properties = BoundProperties.of(keys);
		List<Policy> compiled = PolicyCompiler.compile(properties);

		Set<List<String>> warned = PolicyWarnings.onRelayOwnTool(compiled, properties, Set.of());

		assertThat(warned).extracting(key -> key.get(2))
			.containsExactlyInAnyOrder("plain", "concat", "escape", "prefix", "allow-list");
	}

}
