package dev.mcprelay.policy;

import java.time.Duration;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.policy.PolicyLog.Consequence;

/**
 * Audit-mode policies ({@code enforce: false}) on what the enforced ones let through: each one that would refuse a
 * request, or would leave an item out of a list, is counted ({@code outcome="audited"}) and logged, and refuses
 * nothing; one whose expression fails is counted as an {@code error} only (and logged as a failure). A request's is logged each time; a listed item's once per policy, server, item and caller within
 * {@link #WINDOW} (a list is read again and again, and would log each of its items each time), at most
 * {@value #MAX_REMEMBERED} such lines remembered.
 */
final class PolicyAudits {

	private static final Logger log = LoggerFactory.getLogger(Policies.class);

	/** How long an item an audit-mode policy would hide is not logged again for the same caller. */
	static final Duration WINDOW = Duration.ofMinutes(1);

	static final int MAX_REMEMBERED = 10_000;

	private final PolicyMeters meters;

	private final Cache<String, Boolean> logged = Caffeine.newBuilder()
		.expireAfterWrite(WINDOW)
		.maximumSize(MAX_REMEMBERED)
		.executor(Runnable::run)
		.build();

	PolicyAudits(PolicyMeters meters) {
		this.meters = meters;
	}

	/**
	 * Runs the audit-mode policies among {@code governing} on a message or item the enforced ones let through, each
	 * verdict from {@code verdicts}.
	 *
	 * @param listed whether it is an item of a list (its verdicts have the call's arguments unknown: one that depends
	 * on them would refuse no listing)
	 */
	void audit(List<Policy> governing, PolicyFacts facts, PolicyEvaluation.Verdicts verdicts, boolean listed) {
		for (int i = 0; i < governing.size(); i++) {
			Policy policy = governing.get(i);
			if (policy.enforced()) {
				continue;
			}
			RuleVerdict verdict = verdicts.of(i, policy);
			if (verdict.outcome() == RuleVerdict.Outcome.ERROR) {
				// one outcome per decision: a failure is an error (which would have refused), not an audit too
				meters.failed(policy.name(), facts.server());
				PolicyLog.failure(policy.name(), verdict.error(), Consequence.AUDITED);
			}
			else if (policy.refuses(verdict)) {
				meters.audited(policy.name(), facts.server());
				if (!listed) {
					log.info("Policy '{}' (audit mode) would refuse {} of {} on server '{}' for caller {}", policy.name(),
							facts.method(), PolicyLog.quote(itemOf(facts)), facts.server(), PolicyLog.quote(callerOf(facts)));
				}
				else if (logged.asMap().putIfAbsent(String.join("\n", policy.name(), facts.server(), itemOf(facts),
						callerOf(facts)), Boolean.TRUE) == null) {
					log.info("Policy '{}' (audit mode) would leave {} out of lists on server '{}' for caller {} (logged "
							+ "once a minute per item and caller, counted each time)", policy.name(),
							PolicyLog.quote(itemOf(facts)), facts.server(), PolicyLog.quote(callerOf(facts)));
				}
			}
		}
	}

	static String itemOf(PolicyFacts facts) {
		return facts.tool() != null ? facts.tool() : facts.prompt() != null ? facts.prompt()
				: facts.resource() != null ? withoutSecrets(facts.resource()) : "";
	}

	/**
	 * A resource URI as a log line may say it: without its query, fragment and userinfo, where a signed URL, a token or a
	 * password rides ({@code res://secret/b?token=...}, {@code https://user:pw@host/x}); the access log names no URI at
	 * all (review 43e F5).
	 */
	static String withoutSecrets(String uri) {
		int end = uri.length();
		int query = uri.indexOf('?');
		int fragment = uri.indexOf('#');
		if (query >= 0) {
			end = query;
		}
		if (fragment >= 0 && fragment < end) {
			end = fragment;
		}
		String kept = uri.substring(0, end);
		int authority = kept.indexOf("//");
		if (authority >= 0) {
			int path = kept.indexOf('/', authority + 2);
			int at = kept.lastIndexOf('@', path < 0 ? kept.length() - 1 : path - 1);
			if (at > authority) {
				kept = kept.substring(0, authority + 2) + kept.substring(at + 1);
			}
		}
		return kept;
	}

	static String callerOf(PolicyFacts facts) {
		return facts.caller() == null || facts.caller().id() == null ? "-" : facts.caller().id();
	}

}
