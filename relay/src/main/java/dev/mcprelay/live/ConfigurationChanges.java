package dev.mcprelay.live;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.UnresolvedVariables;

/**
 * What differs between two bound configurations, named for a log line without a value: each changed unit (a server or
 * virtual server by id, an element of a list by its index, otherwise the section) with whether it was added, removed
 * or changed, e.g. {@code servers.jira added}, {@code security.api-keys[1] changed}.
 */
final class ConfigurationChanges {

	private static final Set<String> KEYED = Set.of("servers", "virtual-servers");

	private ConfigurationChanges() {
	}

	static List<String> between(RelayProperties before, RelayProperties after) {
		Map<String, Object> old = flatten(before);
		Map<String, Object> now = flatten(after);
		Set<String> units = new TreeSet<>();
		Set<String> paths = new TreeSet<>(old.keySet());
		paths.addAll(now.keySet());
		for (String path : paths) {
			if (!Objects.equals(String.valueOf(old.get(path)), String.valueOf(now.get(path)))) {
				units.add(unit(path));
			}
		}
		List<String> changes = new ArrayList<>();
		for (String unit : units) {
			boolean was = old.keySet().stream().anyMatch(path -> unit(path).equals(unit));
			boolean is = now.keySet().stream().anyMatch(path -> unit(path).equals(unit));
			changes.add(unit + (!was ? " added" : !is ? " removed" : " changed"));
		}
		return changes;
	}

	private static Map<String, Object> flatten(RelayProperties properties) {
		Map<String, Object> values = new LinkedHashMap<>();
		UnresolvedVariables.walk("", properties, (path, value) -> values.put(path.substring(1), value));
		return values;
	}

	/** The unit a path belongs to: {@code servers.<id>}, a list element, or the first two segments. */
	static String unit(String path) {
		int bracket = path.indexOf('[');
		String[] segments = path.split("\\.");
		if (KEYED.contains(segments[0]) && segments.length > 1) {
			String id = segments[1];
			int at = id.indexOf('[');
			return segments[0] + "." + (at < 0 ? id : id.substring(0, at));
		}
		if (bracket >= 0) {
			return path.substring(0, path.indexOf(']', bracket) + 1);
		}
		return segments.length > 1 ? segments[0] + "." + segments[1] : segments[0];
	}

}
