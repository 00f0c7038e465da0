package dev.mcprelay.live;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.RelayProperties;

/**
 * What a reload may change in this version, for {@link ConfigurationReloader} to refuse the rest rather than half
 * apply it, compared by binding ({@link BoundSettings}: a server by its id, which may hold dots, and its settings by
 * name). The components that read their settings from the request's snapshot are the routes, the servers' own
 * connection settings (url, transport, authorization, headers, timeouts, max-buffered-body, rejected server requests,
 * allowed scopes, OAuth2 client, argument injection and its reserved prefix, tool lists, tool search, pinned protocol
 * versions), the API keys and the JWT settings but the mode, the policies, the rate limits and the virtual servers; the
 * others still compile
 * their part once at start-up, and a change to one of those is refused, naming it. A server removed is always
 * applied; a mention of it a virtual server or a key leaves behind is refused by the start-up check, which names the
 * property. Virtual servers resolve their members against each snapshot, so a server added or removed joins or leaves
 * a virtual server with {@code members: ["*"]} (one whose settings change otherwise ends its sessions:
 * {@code virtual.VirtualServers}), and the policies and rate limits are compiled for each snapshot, so a server
 * added is governed and counted by those that name it (or {@code *}) from its first request.
 */
final class LiveScope {

	/** The settings of a server that a reload applies. */
	private static final Set<String> LIVE_SERVER_SETTINGS = Set.of("url", "transport", "authorization", "headers",
			"timeouts", "max-buffered-body", "rejected-server-requests", "allowed-scopes", "oauth2", "arguments",
			"tools", "tool-search", "protocol-versions");

	/** The sections, besides the servers, that a reload applies: each a list whose elements are units. */
	private static final Set<String> LIVE_SECTIONS = Set.of("policies", "rate-limits", "virtual-servers");

	private LiveScope() {
	}

	/**
	 * Whether {@code unit} is an API key ({@code security.api-keys[n]}) or a JWT setting ({@code security.jwt}, its
	 * lists' elements): the front door's part of each snapshot ({@code security.CallerAuthentication}); the mode is
	 * held at its running value by the reloader.
	 */
	private static boolean isLiveSecurity(String unit) {
		return unit.startsWith("security.api-keys[") || unit.equals("security.jwt") || unit.startsWith("security.jwt.");
	}

	static List<ConfigurationProblem> problems(RelayProperties running, RelayProperties next) {
		Map<String, Map<String, Object>> before = BoundSettings.of(running);
		Map<String, Map<String, Object>> after = BoundSettings.of(next);
		Set<String> units = new TreeSet<>(before.keySet());
		units.addAll(after.keySet());
		Set<String> notLive = new TreeSet<>();
		for (String unit : units) {
			Map<String, Object> was = before.get(unit);
			Map<String, Object> is = after.get(unit);
			if (Objects.equals(was, is) || unit.equals("default-server") || isLiveSecurity(unit)) {
				continue;
			}
			if (!BoundSettings.isServer(unit)) {
				if (!LIVE_SECTIONS.contains(section(unit))) {
					notLive.add(unit);
				}
			}
			else if (was != null && is != null) {
				// a server in both: each of its settings by name (a server added or removed is applied)
				is.forEach((setting, value) -> {
					if (!Objects.equals(was.get(setting), value) && !LIVE_SERVER_SETTINGS.contains(setting)) {
						notLive.add(unit + "." + setting);
					}
				});
			}
		}
		List<ConfigurationProblem> problems = new ArrayList<>();
		notLive.forEach(unit -> problems.add(new ConfigurationProblem("mcp-relay." + unit,
				"cannot change while the relay runs in this version", "Restart the relay to apply it")));
		return problems;
	}

	/** The section a unit of an unkeyed section is in: {@code policies} for {@code policies[2]}. */
	private static String section(String unit) {
		int end = unit.indexOf('[');
		int dot = unit.indexOf('.');
		if (end < 0 || (dot >= 0 && dot < end)) {
			end = dot;
		}
		return end < 0 ? unit : unit.substring(0, end);
	}

}
