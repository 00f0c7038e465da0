package dev.mcprelay.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one decision of who may see and call what (DESIGN section 12), for every path that lists or uses a tool, prompt
 * or resource: a message is refused when a governing enforced {@code deny} is true, or when governing enforced
 * {@code allow}s exist and none is true; an expression that fails at run time refuses. A listed item is decided as the
 * request that would use it with its arguments unknown, so what depends only on a call's arguments leaves the item
 * listed and is decided on the call: what a caller sees listed is what it may call.
 *
 * <p>Audit-mode policies ({@code enforce: false}) are evaluated beside the others and refuse nothing: what one would
 * refuse is logged and counted ({@link PolicyMeters}). Policies that govern nothing a message reaches cost it nothing:
 * the governing ones are found once per server and virtual server. Thread-safe; never blocks.
 */
public final class Policies {

	private static final Logger log = LoggerFactory.getLogger(Policies.class);

	private final List<Policy> policies;

	private final PolicyMeters meters;

	private final Map<String, List<Policy>> governing = new ConcurrentHashMap<>();

	Policies(List<Policy> policies, PolicyMeters meters) {
		this.policies = List.copyOf(policies);
		this.meters = meters;
	}

	/**
	 * The engine of {@code properties}' policies and tool lists ({@link PolicyCompiler}), counting on {@code registry}.
	 * @throws dev.mcprelay.config.InvalidRelayConfigurationException naming every problem
	 */
	public static Policies of(dev.mcprelay.config.RelayProperties properties,
			io.micrometer.core.instrument.MeterRegistry registry) {
		return new Policies(PolicyCompiler.compile(properties), new PolicyMeters(registry));
	}

	/** Whether any policy governs messages to {@code server} (directly or through any virtual server). */
	public boolean governsAny(String server, Iterable<String> virtualServers) {
		if (!governing(server, null).isEmpty()) {
			return true;
		}
		for (String virtual : virtualServers) {
			if (!governing(server, virtual).isEmpty()) {
				return true;
			}
		}
		return false;
	}

	/** Whether a policy that governs {@code facts}'s server reads tools' published definitions. */
	public boolean needsToolDefinitions(String server, String virtualServer) {
		return governing(server, virtualServer).stream().anyMatch(policy -> policy.rule().readsAnnotations());
	}

	/** The decision on a message (a call: its arguments are known). Refusals and audits are counted and logged. */
	public PolicyDecision decide(PolicyFacts facts) {
		PolicyDecision decision = decide(facts, true);
		if (!decision.allowed()) {
			meters.refused(decision.policy(), facts.server(), decision.failed());
		}
		return decision;
	}

	/**
	 * Whether the item {@code facts} names may be listed: if and only if the request that would use it is allowed with
	 * some arguments. Its rules are run with the arguments unknown; when the outcome depends on them, with each set of
	 * arguments that decides it exactly ({@link ArgumentCandidates}), or, where no such set exists, it is listed (and
	 * each call decided by its arguments). Hidden items are counted.
	 */
	public boolean lists(PolicyFacts facts) {
		Evaluation evaluation = evaluate(facts, false);
		PolicyDecision decision = evaluation.decision();
		if (decision.allowed() && evaluation.undecided()) {
			List<Map<String, Object>> candidates = ArgumentCandidates.of(evaluation.argumentShapes());
			if (candidates != null) {
				decision = candidates.stream()
					.map(arguments -> evaluate(facts.withArguments(arguments), true, false).decision())
					.filter(PolicyDecision::allowed)
					.findFirst()
					.orElseGet(() -> new PolicyDecision(false, evaluation.undecidedBy(), false));
			}
		}
		if (!decision.allowed()) {
			meters.hidden(decision.policy(), facts.server());
		}
		return decision.allowed();
	}

	private PolicyDecision decide(PolicyFacts facts, boolean argumentsKnown) {
		return evaluate(facts, argumentsKnown, true).decision();
	}

	private Evaluation evaluate(PolicyFacts facts, boolean argumentsKnown) {
		return evaluate(facts, argumentsKnown, true);
	}

	/**
	 * A decision, and whether an enforced rule's outcome was unknown (it depends on the arguments, not known while
	 * listing), with how those rules read the arguments and the first of them.
	 */
	private record Evaluation(PolicyDecision decision, boolean undecided, List<ArgumentShapes> argumentShapes,
			String undecidedBy) {
	}

	/** @param observed whether failures and audits are counted and logged (not for the arguments a listing tries) */
	private Evaluation evaluate(PolicyFacts facts, boolean argumentsKnown, boolean observed) {
		List<Policy> applicable = governing(facts.server(), facts.virtualServer());
		if (applicable.isEmpty()) {
			return new Evaluation(PolicyDecision.ALLOWED, false, List.of(), null);
		}
		Map<String, Object> activation = null;
		Policy refusingDeny = null;
		boolean refusingFailed = false;
		Policy firstAllow = null;
		boolean allowFailed = false;
		boolean allowed = false;
		List<Policy> audits = null;
		List<ArgumentShapes> undecided = null;
		String undecidedBy = null;
		for (Policy policy : applicable) {
			if (!policy.enforced()) {
				(audits == null ? audits = new ArrayList<>(2) : audits).add(policy);
				continue;
			}
			if (refusingDeny != null && policy.denies()) {
				continue;
			}
			if (activation == null && policy.rule() instanceof CelRule) {
				activation = facts.activation();
			}
			RuleVerdict verdict = policy.rule().evaluate(facts, activation, argumentsKnown);
			if (observed) {
				failed(policy, facts, verdict);
			}
			if (verdict.outcome() == RuleVerdict.Outcome.UNKNOWN) {
				(undecided == null ? undecided = new ArrayList<>(2) : undecided).add(policy.rule().argumentShapes());
				undecidedBy = undecidedBy == null ? policy.name() : undecidedBy;
			}
			if (policy.denies()) {
				if (policy.refuses(verdict)) {
					refusingDeny = policy;
					refusingFailed = verdict.outcome() == RuleVerdict.Outcome.ERROR;
				}
			}
			else {
				if (firstAllow == null) {
					firstAllow = policy;
					allowFailed = verdict.outcome() == RuleVerdict.Outcome.ERROR;
				}
				allowed |= !policy.refuses(verdict);
			}
		}
		if (refusingDeny != null) {
			return new Evaluation(new PolicyDecision(false, refusingDeny.name(), refusingFailed), false, List.of(), null);
		}
		if (firstAllow != null && !allowed) {
			return new Evaluation(new PolicyDecision(false, firstAllow.name(), allowFailed), false, List.of(), null);
		}
		if (audits != null && argumentsKnown && observed) {
			audit(audits, facts, activation);
		}
		return new Evaluation(PolicyDecision.ALLOWED, undecided != null,
				undecided == null ? List.of() : undecided, undecidedBy);
	}

	/** Audit-mode policies on a message the enforced ones let through: each that would refuse it is logged and counted. */
	private void audit(List<Policy> audits, PolicyFacts facts, Map<String, Object> known) {
		Map<String, Object> activation = known != null ? known : facts.activation();
		for (Policy policy : audits) {
			RuleVerdict verdict = policy.rule().evaluate(facts, activation, true);
			failed(policy, facts, verdict);
			if (policy.refuses(verdict)) {
				meters.audited(policy.name(), facts.server());
				log.info("Policy '{}' (audit mode) would refuse {} of {} on server '{}' for caller {}", policy.name(),
						facts.method(), PolicyLog.quote(itemOf(facts)), facts.server(), PolicyLog.quote(callerOf(facts)));
			}
		}
	}

	private void failed(Policy policy, PolicyFacts facts, RuleVerdict verdict) {
		if (verdict.outcome() == RuleVerdict.Outcome.ERROR) {
			meters.failed(policy.name(), facts.server());
			PolicyLog.failure(policy.name(), verdict.error());
		}
	}

	private List<Policy> governing(String server, String virtualServer) {
		String key = virtualServer == null ? server : server + '\n' + virtualServer;
		return governing.computeIfAbsent(key,
				any -> policies.stream().filter(policy -> policy.governs(server, virtualServer)).toList());
	}

	private static String itemOf(PolicyFacts facts) {
		return facts.tool() != null ? facts.tool() : facts.prompt() != null ? facts.prompt()
				: facts.resource() != null ? facts.resource() : "";
	}

	private static String callerOf(PolicyFacts facts) {
		return facts.caller() == null || facts.caller().id() == null ? "-" : facts.caller().id();
	}

}
