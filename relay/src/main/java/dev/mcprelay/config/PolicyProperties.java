package dev.mcprelay.config;

import java.util.List;

import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * One policy of {@code mcp-relay.policies} (DESIGN section 12): who may see and call what, as a CEL expression over the
 * caller, the server and the MCP message (the environment is {@code dev.mcprelay.policy.PolicyEnvironment}). A message
 * is denied when any governing {@code deny} is true; otherwise it is allowed when no governing {@code allow} exists or
 * one is true. An expression that fails at run time (a claim the token lacks) counts as denying.
 *
 * @param name the policy's name, in logs, meters, spans and refusals' data
 * @param servers the servers and virtual servers it governs, or {@code *} for all; a virtual server's policy governs
 * what reaches its members through it
 * @param allow an expression that must be true for the message to be allowed (exactly one of allow and deny)
 * @param deny an expression that denies the message when true
 * @param enforce {@code false} for audit mode: what the policy would refuse is logged and counted, nothing is refused
 */
public record PolicyProperties(String name, @DefaultValue List<String> servers, String allow, String deny,
		@DefaultValue("true") boolean enforce) {

	public PolicyProperties {
		servers = servers == null ? List.of() : List.copyOf(servers);
	}

	/** The expression, whichever of allow and deny it is. */
	public String expression() {
		return allow != null ? allow : deny;
	}

}
