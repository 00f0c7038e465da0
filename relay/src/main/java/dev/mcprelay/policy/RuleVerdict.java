package dev.mcprelay.policy;

/**
 * What one policy expression said about one message: true, false, unknown (it depends on a call's arguments, which a
 * listed item does not have yet), or an error at run time (a claim the token lacks, a value of the wrong type), which
 * counts as denying.
 *
 * @param outcome which of the four
 * @param error CEL's message for an error; {@code null} otherwise
 */
record RuleVerdict(Outcome outcome, String error) {

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
