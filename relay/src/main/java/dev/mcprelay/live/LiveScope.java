package dev.mcprelay.live;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.UnresolvedVariables;

/**
 * What a reload may change in this version, for {@link ConfigurationReloader} to refuse the rest rather than half
 * apply it. The components that read their settings from the request's snapshot are the routes and the servers' own
 * connection settings (url, transport, authorization, headers, timeouts, max-buffered-body, rejected server requests,
 * allowed scopes, OAuth2 client, argument injection and its reserved prefix); the others (tool lists, tool search,
 * policies, rate limits, API keys, virtual servers, ...) still compile their part once at start-up. A change to one of
 * those is refused, naming it, and so is a server added with tool lists or tool search, or while policies or rate
 * limits are configured: they are compiled per server at start-up, and a server they do not know would be served
 * without them. A server removed is always applied; virtual servers resolve their members against each snapshot, so a
 * server added or removed joins or leaves a virtual server with {@code members: ["*"]}.
 */
final class LiveScope {

	/** The settings of a server that a reload applies. */
	private static final Set<String> LIVE_SERVER_SETTINGS = Set.of("url", "transport", "authorization", "headers",
			"timeouts", "max-buffered-body", "rejected-server-requests", "allowed-scopes", "oauth2", "arguments");

	private LiveScope() {
	}

	static List<ConfigurationProblem> problems(RelayProperties running, RelayProperties next) {
		Map<String, Object> before = flatten(running);
		Map<String, Object> after = flatten(next);
		Set<String> paths = new TreeSet<>(before.keySet());
		paths.addAll(after.keySet());
		Set<String> notLive = new TreeSet<>();
		for (String path : paths) {
			if (addedOrRemoved(path, running, next)) {
				continue;
			}
			if (!Objects.equals(String.valueOf(before.get(path)), String.valueOf(after.get(path))) && !isLive(path)) {
				notLive.add(ConfigurationChanges.unit(path) + settingOf(path));
			}
		}
		List<ConfigurationProblem> problems = new ArrayList<>();
		notLive.forEach(unit -> problems.add(new ConfigurationProblem("mcp-relay." + unit,
				"cannot change while the relay runs in this version", "Restart the relay to apply it")));
		next.servers().forEach((id, server) -> {
			boolean usesStartUpParts = !server.tools().allow().isEmpty() || !server.tools().deny().isEmpty()
					|| server.toolSearch().enabled();
			if (!running.servers().containsKey(id) && usesStartUpParts) {
				problems.add(new ConfigurationProblem("mcp-relay.servers." + id,
						"a server with tools or tool-search settings cannot be added while the relay runs "
								+ "in this version", "Restart the relay to add it"));
			}
		});
		boolean compiledPerServer = !next.policies().isEmpty() || !next.rateLimits().isEmpty();
		if (compiledPerServer) {
			next.servers().keySet().stream().filter(id -> !running.servers().containsKey(id)).sorted()
				.forEach(id -> problems.add(new ConfigurationProblem("mcp-relay.servers." + id,
						"a server cannot be added while the relay runs when policies or rate limits are configured "
								+ "(they are compiled per server at start-up)",
						"Restart the relay to add it")));
		}
		return problems;
	}

	/** Whether {@code path} is a setting of a server one configuration has and the other lacks. */
	private static boolean addedOrRemoved(String path, RelayProperties running, RelayProperties next) {
		String[] segments = path.split("\\.");
		if (!segments[0].equals("servers") || segments.length < 2) {
			return false;
		}
		String id = segments[1];
		return running.servers().containsKey(id) != next.servers().containsKey(id);
	}

	private static boolean isLive(String path) {
		if (path.equals("default-server")) {
			return true;
		}
		String[] segments = path.split("\\.");
		if (!segments[0].equals("servers") || segments.length < 3) {
			return false;
		}
		String setting = segments[2];
		int bracket = setting.indexOf('[');
		return LIVE_SERVER_SETTINGS.contains(bracket < 0 ? setting : setting.substring(0, bracket));
	}

	/** For a server's setting, {@code .setting}; nothing otherwise. */
	private static String settingOf(String path) {
		String[] segments = path.split("\\.");
		if (segments[0].equals("servers") && segments.length > 2) {
			String setting = segments[2];
			int bracket = setting.indexOf('[');
			return "." + (bracket < 0 ? setting : setting.substring(0, bracket));
		}
		return "";
	}

	private static Map<String, Object> flatten(RelayProperties properties) {
		Map<String, Object> values = new LinkedHashMap<>();
		UnresolvedVariables.walk("", properties, (path, value) -> values.put(path.substring(1), value));
		return values;
	}

}
