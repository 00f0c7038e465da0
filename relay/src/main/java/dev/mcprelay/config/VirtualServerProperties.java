package dev.mcprelay.config;

import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * One virtual server, {@code mcp-relay.virtual-servers.<id>} (DESIGN section 11): one MCP endpoint, at
 * {@code /mcp/<id>} and {@code /<id>/mcp}, composing the configured servers it names. Its id shares one namespace
 * with the servers'.
 *
 * @param members the servers it composes, by id, in the order that wins when two publish one name; {@code *} stands
 * for every configured server, in configuration order
 * @param toolPrefix what goes before each member's tool and prompt names: a template in which {@code {server}} is the
 * member's id; {@code ""} for none
 * @param prefix a member's own prefix, by member id, instead of {@code tool-prefix}'s
 * @param toolSearch tool search over the merged catalogue, as for a server
 */
public record VirtualServerProperties(
		@DefaultValue List<String> members,
		@DefaultValue(DEFAULT_TOOL_PREFIX) String toolPrefix,
		@DefaultValue Map<String, String> prefix,
		@DefaultValue ToolSearchProperties toolSearch) {

	/** The default {@code tool-prefix}: the member's id and an underscore. */
	public static final String DEFAULT_TOOL_PREFIX = "{server}_";

	/** The placeholder of {@code tool-prefix} that stands for the member's id. */
	public static final String SERVER_PLACEHOLDER = "{server}";

	public VirtualServerProperties {
		members = members == null ? List.of() : List.copyOf(members);
		toolPrefix = toolPrefix == null ? DEFAULT_TOOL_PREFIX : toolPrefix;
		prefix = prefix == null ? Map.of() : Map.copyOf(prefix);
		toolSearch = toolSearch == null ? new ToolSearchProperties(false, 5, List.of()) : toolSearch;
	}

	/** The prefix of member {@code server}'s tool and prompt names. */
	public String prefixOf(String server) {
		String own = prefix.get(server);
		return own != null ? own : toolPrefix.replace(SERVER_PLACEHOLDER, server);
	}

}
