package dev.mcprelay.config;

import java.util.List;

import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Tool search, {@code mcp-relay.servers.<id>.tool-search}: instead of the whole catalogue, {@code tools/list} offers
 * {@code search_available_tools}, the tools always exposed, and whatever this session's searches found.
 *
 * @param enabled whether the server's catalogue is offered through search
 * @param maxResults how many tools one search returns at most (a call may ask for fewer with {@code limit})
 * @param alwaysExpose tools listed in every session, by exact name or glob ({@code *} matches any run of characters)
 */
public record ToolSearchProperties(
		@DefaultValue("false") boolean enabled,
		@DefaultValue("5") int maxResults,
		@DefaultValue List<String> alwaysExpose) {

	public ToolSearchProperties {
		alwaysExpose = alwaysExpose == null ? List.of() : List.copyOf(alwaysExpose);
	}

}
