package dev.mcprelay.policy;

/**
 * A value an expression read and no rule can judge for the server it goes to: thrown by the views its variables are
 * made of ({@link HeaderValues}, {@link CelMapView}) at the moment an expression reads such a value, never before, so
 * that only a rule that reads it fails. {@link PolicyExpression} makes it the rule's error verdict of kind
 * {@link #kind()} (an enforced rule refuses, an audit-mode rule counts the error and refuses nothing). It carries no
 * message and no stack: nothing of the value reaches a log.
 */
abstract class UnreadableValue extends RuntimeException {

	private final String kind;

	/** @param kind the kind of error of a rule that read it ({@link RuleVerdict#error}) */
	UnreadableValue(String kind) {
		super(null, null, false, false);
		this.kind = kind;
	}

	/** The kind of error of a rule that read it. */
	String kind() {
		return kind;
	}

}
