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

}
