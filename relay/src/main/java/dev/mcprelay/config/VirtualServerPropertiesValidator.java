package dev.mcprelay.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks {@code mcp-relay.virtual-servers}: each id is a path segment no server takes; its members are configured
 * servers (not virtual ones), each named once, or {@code *} alone; every member's prefix can only make names in MCP's
 * tool-name alphabet ({@code A-Z a-z 0-9 _ - .}) and leaves room for a name within 128 characters; prefix overrides
 * name members.
 */
final class VirtualServerPropertiesValidator {

	/** The characters an MCP tool name may hold (MCP 2025-11-25, "Tool names"). */
	static final Pattern TOOL_NAME_ALPHABET = Pattern.compile("[A-Za-z0-9_.-]*");

	/** The longest tool name MCP allows. */
	static final int MAX_TOOL_NAME = 128;

	private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._~-]*");

	private VirtualServerPropertiesValidator() {
	}

	static List<ConfigurationProblem> validate(RelayProperties properties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		properties.virtualServers().forEach((id, virtual) -> {
			String path = "mcp-relay.virtual-servers." + id;
			if (!ID.matcher(id).matches()) {
				problems.add(new ConfigurationProblem(path, "the id '" + id + "' cannot be a URL path segment",
						"Use letters, digits, '.', '_', '~' and '-' only, starting with a letter or digit, e.g. all"));
			}
			if (properties.servers().containsKey(id)) {
				problems.add(new ConfigurationProblem(path, "'" + id + "' is also the id of a server",
						"Give the virtual server an id no server under mcp-relay.servers has: the two share /mcp/" + id));
			}
			if (virtual == null) {
				problems.add(new ConfigurationProblem(path + ".members", "is missing",
						"List the servers it composes, e.g. members: [github, jira], or [\"*\"] for all"));
				return;
			}
			List<String> members = validateMembers(path, virtual.members(), properties, problems);
			validatePrefixes(path, virtual, members, problems);
			if (virtual.toolSearch().maxResults() < 1) {
				problems.add(new ConfigurationProblem(path + ".tool-search.max-results",
						"must be at least 1 but is " + virtual.toolSearch().maxResults(), "Write a positive number, e.g. 5"));
			}
		});
		return problems;
	}

	/** The members that name configured servers, each once. */
	private static List<String> validateMembers(String path, List<String> members, RelayProperties properties,
			List<ConfigurationProblem> problems) {
		if (members.isEmpty()) {
			problems.add(new ConfigurationProblem(path + ".members", "is empty",
					"List the servers it composes, e.g. members: [github, jira], or [\"*\"] for all"));
			return List.of();
		}
		if (members.contains("*")) {
			if (members.size() > 1) {
				problems.add(new ConfigurationProblem(path + ".members", "holds '*' beside other ids",
						"Write [\"*\"] alone for every server, or list the servers by id"));
			}
			return List.copyOf(properties.servers().keySet());
		}
		List<String> known = new ArrayList<>();
		Set<String> seen = new HashSet<>();
		for (int i = 0; i < members.size(); i++) {
			String member = members.get(i);
			String memberPath = path + ".members[" + i + "]";
			if (properties.virtualServers().containsKey(member) && !properties.servers().containsKey(member)) {
				problems.add(new ConfigurationProblem(memberPath, "'" + member + "' is a virtual server",
						"List the servers themselves: a virtual server composes servers, not other virtual servers"));
			}
			else if (!properties.servers().containsKey(member)) {
				problems.add(new ConfigurationProblem(memberPath, "'" + member + "' is not a configured server",
						"Write the id of a server under mcp-relay.servers"));
			}
			else if (!seen.add(member)) {
				problems.add(new ConfigurationProblem(memberPath, "'" + member + "' is listed twice",
						"List each server once"));
			}
			else {
				known.add(member);
			}
		}
		return known;
	}

	private static void validatePrefixes(String path, VirtualServerProperties virtual, List<String> members,
			List<ConfigurationProblem> problems) {
		for (Map.Entry<String, String> override : virtual.prefix().entrySet()) {
			if (!members.contains(override.getKey())) {
				problems.add(new ConfigurationProblem(path + ".prefix." + override.getKey(),
						"'" + override.getKey() + "' is not a member", "Name a server listed in members"));
			}
		}
		for (String member : members) {
			String prefix = virtual.prefixOf(member);
			String property = virtual.prefix().containsKey(member) ? path + ".prefix." + member : path + ".tool-prefix";
			if (!TOOL_NAME_ALPHABET.matcher(prefix).matches()) {
				problems.add(new ConfigurationProblem(property,
						"makes '" + prefix + "' for member '" + member + "', outside MCP's tool-name alphabet",
						"Use only A-Z, a-z, 0-9, '_', '-' and '.' (a member id with other characters needs a prefix of its own)"));
			}
			else if (prefix.length() >= MAX_TOOL_NAME) {
				problems.add(new ConfigurationProblem(property,
						"makes a prefix of " + prefix.length() + " characters for member '" + member + "'",
						"Keep it under " + MAX_TOOL_NAME + " characters: a tool name may have " + MAX_TOOL_NAME + " at most"));
			}
		}
	}

}
