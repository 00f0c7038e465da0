package dev.mcprelay.live;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import dev.mcprelay.config.RelayProperties;

/**
 * What differs between two bound configurations, named for a log line without a value: each changed unit
 * ({@link BoundSettings}: a server or virtual server by id, an API key by its client, an element of another list by its
 * index, otherwise the section) with whether it was added, removed or changed, e.g. {@code servers.jira added},
 * {@code security.api-keys[alice] removed}.
 */
final class ConfigurationChanges {

	private ConfigurationChanges() {
	}

	static List<String> between(RelayProperties before, RelayProperties after) {
		Map<String, Map<String, Object>> old = BoundSettings.of(before);
		Map<String, Map<String, Object>> now = BoundSettings.of(after);
		Set<String> units = new TreeSet<>(old.keySet());
		units.addAll(now.keySet());
		List<String> changes = new ArrayList<>();
		for (String unit : units) {
			if (!Objects.equals(old.get(unit), now.get(unit))) {
				changes.add(unit + (!old.containsKey(unit) ? " added" : !now.containsKey(unit) ? " removed" : " changed"));
			}
		}
		return changes;
	}

}
