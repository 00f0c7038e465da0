package dev.mcprelay.policy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.mcprelay.policy.PolicyLog.Consequence;

/**
 * The one decision of who may see and call what (DESIGN section 12), for every path that lists or uses a tool, prompt
 * or resource: a message is refused when a governing enforced {@code deny} is true, or when governing enforced
 * {@code allow}s exist and none is true; an expression that fails at run time refuses. A listed item is decided as the
 * request that would use it with its arguments unknown, so what depends only on a call's arguments leaves the item
 * listed and is decided on the call: what a caller sees listed is what it may call.
 *
 * <p>Audit-mode policies ({@code enforce: false}) are evaluated beside the others and refuse nothing: what one would
 * refuse, or leave out of a list, is logged and counted ({@link PolicyAudits}). Policies that govern nothing a message
 * reaches cost it nothing: the governing ones are found once per server and virtual server; a whole list is decided
 * with what does not depend on its items worked out once ({@link #listing}). Thread-safe; never blocks.
 *
 * <p>One engine is compiled for each configuration snapshot ({@link PolicyCompiler}) and never changes: what it found
 * governing a server is its own, so nothing it decided outlives the snapshot.
 */
public final class Policies {

	private final List<Policy> policies;

	private final PolicyMeters meters;

	private final PolicyAudits audits;

	private final Map<String, List<Policy>> governing = new ConcurrentHashMap<>();

	/** What the rules say of every message of a kind, worked out once ({@link CallVerdicts}). */
	private final CallVerdicts callVerdicts = new CallVerdicts();

	/** What they say of every message of a kind that one caller sends naming one item ({@link CallerVerdicts}). */
	private final CallerVerdicts callerVerdicts = new CallerVerdicts();

	/** The rules compiled for this engine, by what they were compiled from, for the next snapshot to reuse. */
	private final Map<Object, PolicyRule> rules;

	/**
	 * What {@link PolicyWarnings} warned of for this engine's policies (groups of allows that govern a server together,
	 * rules naming tool search's own tool), so that a reload warns only of what it made.
	 */
	private final Set<List<String>> warned;

	Policies(List<Policy> policies, PolicyMeters meters) {
		this(policies, meters, Map.of(), Set.of());
	}

	Policies(List<Policy> policies, PolicyMeters meters, Map<Object, PolicyRule> rules,
			Set<List<String>> warned) {
		this.policies = List.copyOf(policies);
		this.meters = meters;
		this.audits = new PolicyAudits(meters);
		this.rules = Map.copyOf(rules);
		this.warned = Set.copyOf(warned);
	}

	/**
	 * The engine of {@code properties}' policies and tool lists ({@link PolicyCompiler}), counting on {@code registry}.
	 * @throws dev.mcprelay.config.InvalidRelayConfigurationException naming every problem
	 */
	public static Policies of(dev.mcprelay.config.RelayProperties properties,
			io.micrometer.core.instrument.MeterRegistry registry) {
		return new Policies(PolicyCompiler.compile(properties), new PolicyMeters(registry));
	}

	/** The policies of this engine, in the order they were written (the tool lists last). */
	List<Policy> policies() {
		return policies;
	}

	/** The rules of this engine by what they were compiled from: an expression's text, a server's tool lists. */
	Map<Object, PolicyRule> rules() {
		return rules;
	}

	Set<List<String>> warned() {
		return warned;
	}

	/** Whether any policy governs messages to {@code server} through {@code virtualServer} ({@code null}: none). */
	public boolean governs(String server, String virtualServer) {
		return !governing(server, virtualServer).isEmpty();
	}

	/**
	 * Whether an enforced policy governs messages to {@code server} through {@code virtualServer} ({@code null}:
	 * none): where none does, the policies change nothing of what passes (audit mode takes no part).
	 */
	public boolean enforces(String server, String virtualServer) {
		for (Policy policy : governing(server, virtualServer)) {
			if (policy.enforced()) {
				return true;
			}
		}
		return false;
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

	/**
	 * Whether the policies governing {@code server} through {@code virtualServer} ({@code null}: none) may refuse some
	 * caller a {@code resources/read} (so hide a resource's updates from it, or leave it out of a listen): false only
	 * when every one of them, audit-mode ones included, has a verdict on every {@code resources/read} there that no
	 * caller, header or URI can change, and refuses nothing ({@link CallVerdicts}).
	 */
	public boolean mayHideResources(String server, String virtualServer) {
		List<Policy> applicable = governing(server, virtualServer);
		if (applicable.isEmpty()) {
			return false;
		}
		PolicyFacts anyRead = new PolicyFacts(null, server, virtualServer, "resources/read", false, null, null, null, "",
				null, null);
		RuleVerdict[] fixed = callVerdicts.of(applicable, anyRead);
		for (int i = 0; i < fixed.length; i++) {
			RuleVerdict verdict = fixed[i];
			if (verdict == null || verdict.outcome() == RuleVerdict.Outcome.UNKNOWN
					|| verdict.outcome() == RuleVerdict.Outcome.ERROR || applicable.get(i).refuses(verdict)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether a policy that governs messages to {@code server} through {@code virtualServer} ({@code null}: none) reads
	 * the tool a call names (its name or its published annotations): with {@code enforcedOnly}, an enforced one. Where
	 * an enforced one does, a call is decided from the tool the server published to the caller's view
	 * ({@link PublishedCatalogues}), and a name it did not publish is answered as unknown without going upstream, as a
	 * refused one is: else a spelling the server resolves leniently ({@code Delete_File} for {@code delete_file}) would
	 * pass a rule about the name it stands for, and the server's own answer to a name it does not know would tell it
	 * from a refused one. Where only audit-mode ones do, they read the definition the relay keeps, of any age, and
	 * nothing waits for a listing or is refused for want of one (review 43e F1, 43f F-A: audit mode refuses nothing).
	 */
	public boolean readsTool(String server, String virtualServer, boolean enforcedOnly) {
		return anyReads(server, virtualServer, enforcedOnly, READS_TOOL);
	}

	/**
	 * Whether a policy that governs messages to {@code server} through {@code virtualServer} reads a tool's published
	 * annotations ({@code mcp.tool.annotations}), with {@code enforcedOnly} an enforced one: where an enforced one
	 * does, a call there is decided from a definition no older than the server's {@code tools.annotations-max-age}
	 * ({@link PublishedCatalogues}).
	 */
	public boolean readsAnnotations(String server, String virtualServer, boolean enforcedOnly) {
		return anyReads(server, virtualServer, enforcedOnly, READS_ANNOTATIONS);
	}

	/** {@link #readsTool}, for the prompt a request names ({@code mcp.prompt}). */
	public boolean readsPrompt(String server, String virtualServer, boolean enforcedOnly) {
		return anyReads(server, virtualServer, enforcedOnly, READS_PROMPT);
	}

	/** {@link #readsTool} of any policy, audit-mode ones included: whether a tool's definition is worth reading. */
	public boolean readsTool(String server, String virtualServer) {
		return readsTool(server, virtualServer, false);
	}

	/** {@link #readsAnnotations} of any policy, audit-mode ones included. */
	public boolean readsAnnotations(String server, String virtualServer) {
		return readsAnnotations(server, virtualServer, false);
	}

	/** {@link #readsPrompt} of any policy, audit-mode ones included. */
	public boolean readsPrompt(String server, String virtualServer) {
		return readsPrompt(server, virtualServer, false);
	}

	private static final java.util.function.Predicate<PolicyRule> READS_TOOL = PolicyRule::readsTool;

	private static final java.util.function.Predicate<PolicyRule> READS_ANNOTATIONS = PolicyRule::readsAnnotations;

	private static final java.util.function.Predicate<PolicyRule> READS_PROMPT = PolicyRule::readsPrompt;

	private boolean anyReads(String server, String virtualServer, boolean enforcedOnly,
			java.util.function.Predicate<PolicyRule> reads) {
		for (Policy policy : governing(server, virtualServer)) { // asked on every call: no stream
			if ((policy.enforced() || !enforcedOnly) && reads.test(policy.rule())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * A request on {@code server} (through {@code virtualServer}, or {@code null}) that the policies could not decide:
	 * what the rules that read the tool ({@code tool}) or the prompt it names need, the server's list, could not be
	 * had. It is refused, and counted as an error of each such rule.
	 *
	 * @return the name of the first such rule, for the operator's log (never the client's answer); {@code null} if none
	 */
	public String undecidable(String server, String virtualServer, boolean tool) {
		String first = null;
		for (Policy policy : governing(server, virtualServer)) {
			if (tool ? policy.rule().readsTool() : policy.rule().readsPrompt()) {
				meters.failed(policy.name(), server);
				first = first == null ? policy.name() : first;
			}
		}
		return first;
	}

	/** The decision on a message (a call: its arguments are known). Refusals and audits are counted and logged. */
	public PolicyDecision decide(PolicyFacts facts) {
		List<Policy> applicable = governing(facts.server(), facts.virtualServer());
		if (applicable.isEmpty()) {
			return PolicyDecision.ALLOWED;
		}
		Run run = new Run(facts, null, callerVerdicts.of(applicable, facts, callVerdicts.kept(applicable, facts)), true);
		PolicyDecision decision = PolicyEvaluation.combine(applicable, run, failures(facts, Consequence.REFUSED))
			.decision();
		if (!decision.allowed()) {
			// one outcome per decision: a failure that refused was counted as an error, and is not a denial too; the
			// policies after the one that refused are not evaluated, audit-mode ones neither (nothing was let through)
			if (!decision.failed()) {
				meters.refused(decision.policy(), facts.server(), false);
			}
		}
		else {
			audits.audit(applicable, facts, run, false);
		}
		return decision;
	}

	/**
	 * Whether the item {@code facts} names may be listed: if and only if the request that would use it is allowed with
	 * some arguments. Its rules are run with the arguments unknown; when the outcome depends on them, with each set of
	 * arguments that decides it exactly ({@link ArgumentCandidates}), or, where no such set exists, it is listed (and
	 * each call decided by its arguments). Hidden items are counted; what audit-mode policies would hide is counted and
	 * logged. For every item of a list, {@link #listing} decides the same, at less cost.
	 */
	public boolean lists(PolicyFacts facts) {
		return lists(governing(facts.server(), facts.virtualServer()), facts, null, null);
	}

	/**
	 * The decision on each item of one list, whose items share everything of {@code list} but what names them (the
	 * caller, the server, the request, the method): the variables they share are made once, and what a rule says
	 * whatever the item (a rule about the caller alone, or one the caller alone decides) is worked out once for the
	 * whole list.
	 */
	public PolicyListing listing(PolicyFacts list) {
		return new PolicyListing(this, governing(list.server(), list.virtualServer()), list);
	}

	/**
	 * Whether the item of {@code facts} may be listed under {@code applicable}.
	 *
	 * @param base the variables the items of its list share, or {@code null} to make them of {@code facts}
	 * @param fixed verdicts that hold for every item of the list, by index in {@code applicable} ({@code null} entries:
	 * run the rule on the item), or {@code null}
	 */
	boolean lists(List<Policy> applicable, PolicyFacts facts, PolicyFacts.Base base, RuleVerdict[] fixed) {
		if (applicable.isEmpty()) {
			return true;
		}
		Run run = new Run(facts, base, fixed, false);
		PolicyEvaluation.Result result = PolicyEvaluation.combine(applicable, run, failures(facts, Consequence.HIDDEN));
		PolicyDecision decision = result.decision();
		if (decision.allowed() && result.isUndecided()) {
			List<Map<String, Object>> candidates = ArgumentCandidates.of(result.undecided());
			if (candidates != null) {
				decision = candidates.stream()
					.map(arguments -> PolicyEvaluation.combine(applicable,
							new Run(facts.withArguments(arguments), base, fixed, true), (policy, verdict) -> {
							}).decision())
					.filter(PolicyDecision::allowed)
					.findFirst()
					.orElseGet(() -> new PolicyDecision(false, result.undecidedBy(), false));
			}
		}
		if (!decision.allowed()) {
			if (!decision.failed()) {
				// one outcome per decision: a failure that hid the item was counted as an error
				meters.hidden(decision.policy(), facts.server());
			}
			return false;
		}
		audits.audit(applicable, facts, run, true);
		return true;
	}

	/** A failure that refuses: counted, and logged as what it made of the message. */
	private PolicyEvaluation.Failures failures(PolicyFacts facts, Consequence consequence) {
		return (policy, verdict) -> {
			meters.failed(policy.name(), facts.server());
			PolicyLog.failure(policy.name(), verdict.error(), consequence);
		};
	}

	private List<Policy> governing(String server, String virtualServer) {
		String key = virtualServer == null ? server : server + '\n' + virtualServer;
		return governing.computeIfAbsent(key,
				any -> policies.stream().filter(policy -> policy.governs(server, virtualServer)).toList());
	}

	/**
	 * The verdicts of the governing policies on one message or item: a verdict fixed for its whole list, else its rule
	 * run on the message's variables, made once and only when a CEL rule runs.
	 */
	private static final class Run implements PolicyEvaluation.Verdicts {

		private final PolicyFacts facts;

		private final PolicyFacts.Base base;

		private final RuleVerdict[] fixed;

		private final boolean argumentsKnown;

		private PolicyVariables variables;

		Run(PolicyFacts facts, PolicyFacts.Base base, RuleVerdict[] fixed, boolean argumentsKnown) {
			this.facts = facts;
			this.base = base;
			this.fixed = fixed;
			this.argumentsKnown = argumentsKnown;
		}

		@Override
		public RuleVerdict of(int index, Policy policy) {
			if (fixed != null && fixed[index] != null) {
				return fixed[index];
			}
			if (variables == null && policy.rule() instanceof CelRule) {
				variables = base == null ? facts.variables() : facts.variables(base);
			}
			return policy.rule().evaluate(facts, variables, argumentsKnown);
		}

	}

}
