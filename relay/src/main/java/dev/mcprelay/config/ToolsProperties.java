package dev.mcprelay.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DurationUnit;

/**
 * Which of an upstream's tools clients may see and call, mcp-relay.servers.<id>.tools. Each entry is an exact tool
 * name or a glob where {@code *} matches any run of characters (e.g. {@code github_*}). A tool is offered when it
 * matches an allow entry (or allow is empty) and matches no deny entry. A tool not offered is removed from
 * tools/list answers, and a tools/call of it is refused with -32602.
 *
 * @param allow the tools offered; empty offers every tool not denied
 * @param deny the tools never offered, even when allowed
 * @param annotationsMaxAge how old a tool's definition may be when a policy that reads its annotations
 * ({@code mcp.tool.annotations}) decides a call from it: past it, the relay lists the server's tools again (in the
 * caller's view) before it decides, and refuses the call when that listing fails; a server that says its tools changed
 * ({@code list_changed}) is listed again at once, whatever this says. Positive; {@value #DEFAULT_ANNOTATIONS_MAX_AGE}
 * when unset
 */
public record ToolsProperties(@DefaultValue List<String> allow, @DefaultValue List<String> deny,
		@DurationUnit(ChronoUnit.SECONDS) @DefaultValue(ToolsProperties.DEFAULT_ANNOTATIONS_MAX_AGE)
		Duration annotationsMaxAge) {

	/** A server's {@code tools.annotations-max-age} when it sets none, as written. */
	public static final String DEFAULT_ANNOTATIONS_MAX_AGE = "60s";

	/** {@link #DEFAULT_ANNOTATIONS_MAX_AGE}. */
	public static final Duration DEFAULT_ANNOTATIONS_AGE = Duration.ofSeconds(60);

	@ConstructorBinding
	public ToolsProperties {
		allow = allow == null ? List.of() : List.copyOf(allow);
		deny = deny == null ? List.of() : List.copyOf(deny);
		annotationsMaxAge = annotationsMaxAge == null ? DEFAULT_ANNOTATIONS_AGE : annotationsMaxAge;
	}

	/** Tool lists alone ({@code allow} and {@code deny}), the annotations' age the default's. */
	public ToolsProperties(List<String> allow, List<String> deny) {
		this(allow, deny, null);
	}

	/** Whether any rule is set, so that the tool policy applies to this server. */
	public boolean restricts() {
		return !allow.isEmpty() || !deny.isEmpty();
	}

}
