package dev.mcprelay.policy;

import java.util.Set;

/**
 * One policy as the engine runs it: its name, what it governs, whether its rule allows or denies, and whether it is
 * enforced or audited.
 *
 * @param name in logs, meters, spans and refusals as the operator sees them (never in what the client gets)
 * @param servers the server and virtual-server ids it governs; {@code *} for every one
 * @param denies whether the rule denies when true ({@code deny}), else it must be true to allow ({@code allow})
 * @param rule what it says about a message
 * @param enforced {@code false} in audit mode: what it would refuse is logged and counted, nothing is refused
 */
record Policy(String name, Set<String> servers, boolean denies, PolicyRule rule, boolean enforced) {

	/** Whether it governs a message to {@code server}, which came through {@code virtualServer} ({@code null}: none). */
	boolean governs(String server, String virtualServer) {
		return servers.contains("*") || servers.contains(server)
				|| (virtualServer != null && servers.contains(virtualServer));
	}

	/** Whether its verdict refuses: a deny that is true or failed, an allow that is false or failed. */
	boolean refuses(RuleVerdict verdict) {
		return switch (verdict.outcome()) {
			case TRUE -> denies;
			case FALSE -> !denies;
			case ERROR -> true;
			case UNKNOWN -> false;
		};
	}

}
