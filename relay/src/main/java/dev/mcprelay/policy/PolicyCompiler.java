package dev.mcprelay.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

import dev.cel.common.CelValidationException;
import dev.mcprelay.api.CallContext;
import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.InvalidRelayConfigurationException;
import dev.mcprelay.config.PolicyProperties;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.intercept.CallConfiguration;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Builds the policy engine ({@link Policies}) from {@code mcp-relay.policies} and each server's {@code tools} lists, as a
 * part of each configuration snapshot ({@link SnapshotPart}): every expression compiled and type-checked against the
 * one environment ({@link PolicyEnvironment}). Every problem is reported at once, each by its property path; an
 * expression that does not compile is quoted with CEL's message and its position.
 *
 * <p>At a reload, only what changed is compiled: a rule whose expression (or tool lists) the previous snapshot already
 * compiled is taken from it, whatever policy, name or server it now belongs to. A request decides on the policies of
 * the snapshot it took at its first byte ({@link #of(CallContext)}): an edit applies from the next request, a request
 * in flight finishes on the policies it began with, and a server a reload adds is governed by the policies that name
 * it (or {@code *}, or a virtual server it joins) from its first request. What a server sends of its own accord (a
 * notification, a request to the client) is decided by the policies current when it is sent ({@link #asSent}), on
 * whatever stream it comes. The meters of each policy and server it
 * governs are declared at 0 as the snapshot is compiled ({@link PolicyMeters}); the meters of a policy that is gone are
 * kept with their counts.
 */
@Component
public final class PolicyCompiler implements SnapshotPart<Policies> {

	private static final Logger log = LoggerFactory.getLogger(PolicyCompiler.class);

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

	private final PolicyMeters meters;

	private final ObjectProvider<LiveConfiguration> live;

	/** The live configuration, found on first use (it is compiled from this part, among others). */
	private volatile LiveConfiguration liveConfiguration;

	public PolicyCompiler(MeterRegistry registry, ObjectProvider<LiveConfiguration> live) {
		this.meters = new PolicyMeters(registry);
		this.live = live;
	}

	@Override
	public String partName() {
		return "policies";
	}

	/** The problems of {@code mcp-relay.policies}, as the start-up validation and a reload report them. */
	@Override
	public List<ConfigurationProblem> problems(RelayProperties properties) {
		return problemsOf(properties);
	}

	/**
	 * The engine of the snapshot's policies and tool lists, with the rules the previous snapshot compiled reused where
	 * their expression or lists did not change; the meters of every policy and server it governs declared.
	 */
	@Override
	public Policies compile(SnapshotCompilation compilation) {
		Policies previous = compilation.previous(this);
		Map<Object, PolicyRule> rules = new HashMap<>();
		List<ConfigurationProblem> problems = new ArrayList<>();
		List<Policy> compiled = compile(compilation.properties(), previous == null ? Map.of() : previous.rules(), rules,
				problems);
		if (!problems.isEmpty()) {
			throw new InvalidRelayConfigurationException(problems);
		}
		meters.declareFor(compiled, compilation.properties());
		if (previous == null && !compiled.isEmpty()) {
			log.info("{} policies ({} in audit mode): {}", compiled.size(),
					compiled.stream().filter(policy -> !policy.enforced()).count(),
					compiled.stream().map(Policy::name).toList());
		}
		Set<List<String>> warnedBefore = previous == null ? Set.of() : previous.warned();
		Set<List<String>> warned = new java.util.HashSet<>(
				PolicyWarnings.allowsTogether(compiled, compilation.properties(), warnedBefore));
		warned.addAll(PolicyWarnings.onRelayOwnTool(compiled, compilation.properties(), warnedBefore));
		return new Policies(compiled, meters, rules, warned);
	}

	/**
	 * The policies the request of {@code context} runs on: those of its configuration snapshot
	 * ({@link CallConfiguration}), or the current snapshot's for a context the relay did not make.
	 */
	public Policies of(CallContext context) {
		ConfigurationSnapshot snapshot = CallConfiguration.of(context);
		return of(snapshot != null ? snapshot : live.getObject().current());
	}

	/**
	 * The policies a message the server sends of its own accord now, on the stream of {@code context}'s request (a
	 * notification, a request to the client), is decided by: those of the snapshot current now
	 * ({@link CallConfiguration#asSent}), whatever snapshot the stream began on.
	 */
	public Policies asSent(CallContext context) {
		LiveConfiguration found = liveConfiguration;
		if (found == null) {
			found = live.getObject();
			liveConfiguration = found;
		}
		return of(CallConfiguration.asSent(context, found.current()));
	}

	/**
	 * The policies {@code properties} configure, each compiled afresh.
	 * @throws InvalidRelayConfigurationException naming every problem
	 */
	static List<Policy> compile(RelayProperties properties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		List<Policy> policies = compile(properties, Map.of(), new HashMap<>(), problems);
		if (!problems.isEmpty()) {
			throw new InvalidRelayConfigurationException(problems);
		}
		return policies;
	}

	/** The problems of {@code mcp-relay.policies}, as the start-up validation reports them. */
	public static List<ConfigurationProblem> problemsOf(RelayProperties properties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		compile(properties, Map.of(), new HashMap<>(), problems);
		return problems;
	}

	/**
	 * The policies of {@code properties}: a rule found in {@code known} (by its expression, or by a server's tool lists)
	 * is taken from there, any other is compiled; every rule used is put in {@code used}.
	 */
	private static List<Policy> compile(RelayProperties properties, Map<Object, PolicyRule> known,
			Map<Object, PolicyRule> used, List<ConfigurationProblem> problems) {
		List<Policy> policies = new ArrayList<>();
		Set<String> targets = new HashSet<>(properties.servers().keySet());
		targets.addAll(properties.virtualServers().keySet());
		Set<String> names = new HashSet<>();
		List<PolicyProperties> configured = properties.policies();
		for (int i = 0; i < configured.size(); i++) {
			String path = "mcp-relay.policies[" + i + "]";
			PolicyProperties policy = configured.get(i);
			int before = problems.size();
			if (policy.name() == null || !NAME.matcher(policy.name()).matches()) {
				problems.add(new ConfigurationProblem(path + ".name", "is missing or not a name",
						"Name the policy with letters, digits, '.', '_' or '-', e.g. read-only-for-bots: logs and "
								+ "meters say it"));
			}
			else if (!names.add(policy.name())) {
				problems.add(new ConfigurationProblem(path + ".name", "'" + policy.name() + "' names two policies",
						"Give each policy a name of its own"));
			}
			if (policy.servers().isEmpty()) {
				problems.add(new ConfigurationProblem(path + ".servers", "is empty, so the policy governs nothing",
						"List the servers and virtual servers it governs, or [\"*\"] for all"));
			}
			for (int s = 0; s < policy.servers().size(); s++) {
				String server = policy.servers().get(s);
				if (server == null || !(server.equals("*") || targets.contains(server))) {
					problems.add(new ConfigurationProblem(path + ".servers[" + s + "]",
							"'" + server + "' is not a configured server or virtual server",
							"Write an id under mcp-relay.servers or mcp-relay.virtual-servers, or *"));
				}
			}
			boolean allow = policy.allow() != null && !policy.allow().isBlank();
			boolean deny = policy.deny() != null && !policy.deny().isBlank();
			if (allow == deny) {
				problems.add(new ConfigurationProblem(path, allow ? "has both allow and deny" : "has neither allow nor deny",
						"Write one CEL expression: allow (must be true for a message to pass) or deny (refuses it "
								+ "when true)"));
				continue;
			}
			String field = allow ? "allow" : "deny";
			Expression source = new Expression(policy.expression());
			PolicyRule rule = used.containsKey(source) ? used.get(source) : known.get(source);
			if (rule == null) {
				try {
					rule = new CelRule(PolicyEnvironment.compile(policy.expression()));
				}
				catch (CelValidationException invalid) {
					problems.add(new ConfigurationProblem(path + "." + field,
							"'" + policy.expression() + "' is not a valid policy expression: " + invalid.getMessage(),
							"Write a CEL expression over caller, server, mcp and request that is a bool (see docs/policies.md)"));
					continue;
				}
			}
			used.put(source, rule);
			if (problems.size() == before) {
				policies.add(new Policy(policy.name(), new LinkedHashSet<>(policy.servers()), deny, rule,
						policy.enforce()));
			}
		}
		properties.servers().forEach((id, server) -> {
			if (server != null && server.tools().restricts()) {
				policies.add(toolLists(id, server, known, used));
			}
		});
		return policies;
	}

	/** A server's {@code tools} lists, as written, as a policy of its own. */
	private static Policy toolLists(String id, ServerProperties server, Map<Object, PolicyRule> known,
			Map<Object, PolicyRule> used) {
		PolicyRule rule = used.computeIfAbsent(server.tools(),
				tools -> known.containsKey(tools) ? known.get(tools) : new ToolListRule(server.tools()));
		return new Policy("servers." + id + ".tools", Set.of(id), true, rule, true);
	}

	/** What a CEL rule is compiled from: its expression's text, whichever policy it belongs to. */
	private record Expression(String text) {
	}

}
