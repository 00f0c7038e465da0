package dev.mcprelay.config;

import java.util.List;

import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Which of an upstream's tools clients may see and call, mcp-relay.servers.<id>.tools. Each entry is an exact tool
 * name or a glob where {@code *} matches any run of characters (e.g. {@code github_*}). A tool is offered when it
 * matches an allow entry (or allow is empty) and matches no deny entry. A tool not offered is removed from
 * tools/list answers, and a tools/call of it is refused with -32602.
 *
 * @param allow the tools offered; empty offers every tool not denied
 * @param deny the tools never offered, even when allowed
 */
public record ToolsProperties(@DefaultValue List<String> allow, @DefaultValue List<String> deny) {

	public ToolsProperties {
		allow = allow == null ? List.of() : List.copyOf(allow);
		deny = deny == null ? List.of() : List.copyOf(deny);
	}

	/** Whether any rule is set, so that the tool policy applies to this server. */
	public boolean restricts() {
		return !allow.isEmpty() || !deny.isEmpty();
	}

}
