package dev.mcprelay.policy;

/**
 * What one policy expression said about one message: true, false, unknown (it depends on a call's arguments, which a
 * listed item does not have yet), or an error at run time (a claim the token lacks, a value of the wrong type), which
 * counts as denying.
 *
 * @param outcome which of the four
 * @param error CEL's message for an error; {@code null} otherwise
 */
record Verdict(Outcome outcome, String error) {

	static final Verdict TRUE = new Verdict(Outcome.TRUE, null);

	static final Verdict FALSE = new Verdict(Outcome.FALSE, null);

	static final Verdict UNKNOWN = new Verdict(Outcome.UNKNOWN, null);

	static Verdict error(String error) {
		return new Verdict(Outcome.ERROR, error);
	}

	enum Outcome {

		TRUE, FALSE, UNKNOWN, ERROR

	}

}
