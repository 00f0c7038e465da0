package dev.mcprelay.policy;

/**
 * The engine's answer about one message or listed item: allowed, or refused by a named policy (its rule said so, or
 * failed at run time: {@link #failed()}).
 *
 * @param allowed whether the message may pass (an item: be listed)
 * @param policy the enforced policy that refused it, or {@code null} when allowed
 * @param failed whether that policy refused because its expression failed at run time
 */
public record PolicyDecision(boolean allowed, String policy, boolean failed) {

	static final PolicyDecision ALLOWED = new PolicyDecision(true, null, false);

	/** The reason an operator reads in the access log for a refusal. */
	public static final String REASON = "policy_denied";

}
