package dev.mcprelay.policy;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.mcprelay.policy.PolicyLog.Consequence;

/**
 * Audit-mode policies ({@code enforce: false}) on what the enforced ones let through: each one that would refuse a
 * request is counted ({@code outcome="audited"}) and logged, and refuses nothing.
 */
final class PolicyAudits {

	private static final Logger log = LoggerFactory.getLogger(Policies.class);

	private final PolicyMeters meters;

	PolicyAudits(PolicyMeters meters) {
		this.meters = meters;
	}

	/**
	 * Runs the audit-mode policies among {@code governing} on a request the enforced ones let through, each verdict
	 * from {@code verdicts}.
	 */
	void audit(List<Policy> governing, PolicyFacts facts, PolicyEvaluation.Verdicts verdicts) {
		for (int i = 0; i < governing.size(); i++) {
			Policy policy = governing.get(i);
			if (policy.enforced()) {
				continue;
			}
			RuleVerdict verdict = verdicts.of(i, policy);
			if (verdict.outcome() == RuleVerdict.Outcome.ERROR) {
				meters.failed(policy.name(), facts.server());
				PolicyLog.failure(policy.name(), verdict.error(), Consequence.AUDITED);
			}
			if (policy.refuses(verdict)) {
				meters.audited(policy.name(), facts.server());
				log.info("Policy '{}' (audit mode) would refuse {} of {} on server '{}' for caller {}", policy.name(),
						facts.method(), PolicyLog.quote(itemOf(facts)), facts.server(), PolicyLog.quote(callerOf(facts)));
			}
		}
	}

	static String itemOf(PolicyFacts facts) {
		return facts.tool() != null ? facts.tool() : facts.prompt() != null ? facts.prompt()
				: facts.resource() != null ? facts.resource() : "";
	}

	static String callerOf(PolicyFacts facts) {
		return facts.caller() == null || facts.caller().id() == null ? "-" : facts.caller().id();
	}

}
