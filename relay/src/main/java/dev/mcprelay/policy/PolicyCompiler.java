package dev.mcprelay.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import dev.cel.common.CelValidationException;
import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.InvalidRelayConfigurationException;
import dev.mcprelay.config.PolicyProperties;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.ServerProperties;

/**
 * Builds the policy engine from {@code mcp-relay.policies} and each server's {@code tools} lists, once per
 * configuration: every expression compiled and type-checked against the one environment ({@link PolicyEnvironment}).
 * Every problem is reported at once, each by its property path; an expression that does not compile is quoted with
 * CEL's message and its position.
 */
public final class PolicyCompiler {

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

	private PolicyCompiler() {
	}

	/**
	 * The policies {@code properties} configure.
	 * @throws InvalidRelayConfigurationException naming every problem
	 */
	static List<Policy> compile(RelayProperties properties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		List<Policy> policies = compile(properties, problems);
		if (!problems.isEmpty()) {
			throw new InvalidRelayConfigurationException(problems);
		}
		return policies;
	}

	/** The problems of {@code mcp-relay.policies}, as the start-up validation reports them. */
	public static List<ConfigurationProblem> problems(RelayProperties properties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		compile(properties, problems);
		return problems;
	}

	private static List<Policy> compile(RelayProperties properties, List<ConfigurationProblem> problems) {
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
			PolicyExpression expression;
			try {
				expression = PolicyEnvironment.compile(policy.expression());
			}
			catch (CelValidationException invalid) {
				problems.add(new ConfigurationProblem(path + "." + field,
						"'" + policy.expression() + "' is not a valid policy expression: " + invalid.getMessage(),
						"Write a CEL expression over caller, server, mcp and request that is a bool (see docs/policies.md)"));
				continue;
			}
			if (problems.size() == before) {
				policies.add(new Policy(policy.name(), new LinkedHashSet<>(policy.servers()), deny,
						new CelRule(expression), policy.enforce()));
			}
		}
		properties.servers().forEach((id, server) -> {
			if (server != null && server.tools().restricts()) {
				policies.add(toolLists(id, server));
			}
		});
		return policies;
	}

	/** A server's {@code tools} lists, as written, as a policy of its own. */
	private static Policy toolLists(String id, ServerProperties server) {
		return new Policy("servers." + id + ".tools", Set.of(id), true, new ToolListRule(server.tools()), true);
	}

}
