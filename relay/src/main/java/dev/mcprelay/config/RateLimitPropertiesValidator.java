package dev.mcprelay.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks {@code mcp-relay.rate-limits}: each rule has a positive limit and period, a unique name, and matches
 * something that can exist (a server glob without {@code *} must name a configured server).
 */
final class RateLimitPropertiesValidator {

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

	private static final Pattern GLOB = Pattern.compile("[^\\s\\p{Cntrl}]+");

	private RateLimitPropertiesValidator() {
	}

	static List<ConfigurationProblem> validate(RelayProperties properties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		Set<String> names = new HashSet<>();
		List<RateLimitProperties> rules = properties.rateLimits();
		for (int i = 0; i < rules.size(); i++) {
			String path = "mcp-relay.rate-limits[" + i + "]";
			RateLimitProperties rule = rules.get(i);
			String name = rule.nameOr(i);
			if (!NAME.matcher(name).matches()) {
				problems.add(new ConfigurationProblem(path + ".name", "'" + name + "' is not a usable name",
						"Use letters, digits, '.', '_' and '-', e.g. search-per-client"));
			}
			else if (!names.add(name)) {
				problems.add(new ConfigurationProblem(path + ".name", "'" + name + "' names two rules",
						"Give each rule a name of its own"));
			}
			if (rule.limit() < 1) {
				problems.add(new ConfigurationProblem(path + ".limit", "must be at least 1 but is " + rule.limit(),
						"Write how many requests the period allows, e.g. 60"));
			}
			Duration period = rule.period();
			if (period == null || period.isNegative() || period.isZero()) {
				problems.add(new ConfigurationProblem(path + ".period", "must be positive but is " + period,
						"Write the period the limit refills over, e.g. 1m"));
			}
			String server = rule.match().server();
			if (server == null || !GLOB.matcher(server).matches()) {
				problems.add(new ConfigurationProblem(path + ".match.server", "is blank or holds whitespace",
						"Write a server id, or a glob with * (default: every server)"));
			}
			else if (!server.contains("*") && !properties.servers().containsKey(server)) {
				problems.add(new ConfigurationProblem(path + ".match.server",
						"'" + server + "' is not a configured server", "Write an id under mcp-relay.servers, or a glob"));
			}
			String tool = rule.match().tool();
			if (tool != null && !GLOB.matcher(tool).matches()) {
				problems.add(new ConfigurationProblem(path + ".match.tool", "is blank or holds whitespace",
						"Write a tool name or a glob such as search_*, or remove it to count every request"));
			}
		}
		return problems;
	}

}
