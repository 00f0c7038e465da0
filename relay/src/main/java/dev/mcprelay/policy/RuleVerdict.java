package dev.mcprelay.policy;

/**
 * What one policy expression said about one message: true, false, unknown (it depends on a call's arguments, which a
 * listed item does not have yet), or an error at run time (a claim the token lacks, a value of the wrong type), which
 * counts as denying.
 *
 * @param outcome which of the four
 * @param error for an error, its kind ({@code attribute_not_found}, {@code bad_format}, ...: CEL's error code in lower
 * case, or {@link #TOOL_UNKNOWN}, {@link #NOT_A_BOOL}, {@link #INTERNAL}, or an {@link UnreadableValue}'s kind);
 * {@code null} otherwise. Never CEL's message,
 * which can quote the values the expression read (a header, a claim)
 */
record RuleVerdict(Outcome outcome, String error) {

	/** The kind of error of a rule that reads a tool's definition, for a tool the relay does not know. */
	static final String TOOL_UNKNOWN = "tool_definition_unknown";

	/** The kind of error of an expression whose value is not a bool. */
	static final String NOT_A_BOOL = "not_a_bool";

	/** The kind of error of a failure CEL gave no code. */
	static final String INTERNAL = "internal_error";

	static final RuleVerdict TRUE = new RuleVerdict(Outcome.TRUE, null);

	static final RuleVerdict FALSE = new RuleVerdict(Outcome.FALSE, null);

	static final RuleVerdict UNKNOWN = new RuleVerdict(Outcome.UNKNOWN, null);

	static RuleVerdict error(String error) {
		return new RuleVerdict(Outcome.ERROR, error);
	}

	enum Outcome {

		TRUE, FALSE, UNKNOWN, ERROR

	}

}
