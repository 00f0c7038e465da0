package dev.mcprelay.policy;

import java.util.ArrayList;
import java.util.List;

/**
 * The one rule of DESIGN section 12 over the verdicts of the enforced policies that govern a message, in configuration
 * order: the first that refuses decides (a {@code deny} that is true, or any expression that fails at run time, allow
 * or deny: a failure counts as denying whatever another policy says); else, when allows govern, one of them must be
 * true (or, while an item is listed, unknown: it depends on the call's arguments); else the message is allowed.
 * Audit-mode policies take no part. Where the verdicts come from is the caller's ({@link Verdicts}): each rule run on
 * the message, or, for a list, some decided once for every item.
 */
final class PolicyEvaluation {

	private PolicyEvaluation() {
	}

	/** The verdict of the governing policy at {@code index}. */
	@FunctionalInterface
	interface Verdicts {

		RuleVerdict of(int index, Policy policy);

	}

	/** What a run-time failure that refuses is told to: counted and logged by the caller. */
	@FunctionalInterface
	interface Failures {

		void refusedBy(Policy policy, RuleVerdict verdict);

	}

	/**
	 * A decision, and the rules whose outcome was unknown (it depends on the call's arguments, unknown while an item is
	 * listed): how they read the arguments, and the first of them.
	 */
	record Result(PolicyDecision decision, List<ArgumentShapes> undecided, String undecidedBy) {

		static final Result ALLOWED = new Result(PolicyDecision.ALLOWED, List.of(), null);

		boolean isUndecided() {
			return !undecided.isEmpty();
		}

	}

	/** The decision of {@code governing} on one message, each verdict from {@code verdicts}. */
	static Result combine(List<Policy> governing, Verdicts verdicts, Failures failures) {
		Policy firstAllow = null;
		boolean allowed = false;
		List<ArgumentShapes> undecided = null;
		String undecidedBy = null;
		for (int i = 0; i < governing.size(); i++) {
			Policy policy = governing.get(i);
			if (!policy.enforced()) {
				continue;
			}
			RuleVerdict verdict = verdicts.of(i, policy);
			switch (verdict.outcome()) {
				case ERROR -> {
					failures.refusedBy(policy, verdict);
					return new Result(new PolicyDecision(false, policy.name(), true), List.of(), null);
				}
				case TRUE -> {
					if (policy.denies()) {
						return new Result(new PolicyDecision(false, policy.name(), false), List.of(), null);
					}
				}
				case UNKNOWN -> {
					(undecided == null ? undecided = new ArrayList<>(2) : undecided).add(policy.rule().argumentShapes());
					undecidedBy = undecidedBy == null ? policy.name() : undecidedBy;
				}
				case FALSE -> {
				}
			}
			if (!policy.denies()) {
				firstAllow = firstAllow == null ? policy : firstAllow;
				allowed |= verdict.outcome() != RuleVerdict.Outcome.FALSE;
			}
		}
		if (firstAllow != null && !allowed) {
			return new Result(new PolicyDecision(false, firstAllow.name(), false), List.of(), null);
		}
		return undecided == null ? Result.ALLOWED : new Result(PolicyDecision.ALLOWED, undecided, undecidedBy);
	}

}
