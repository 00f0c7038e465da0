package dev.mcprelay.live;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.mcprelay.config.ApiKeyProperties;
import dev.mcprelay.config.BoundPropertyTree;
import dev.mcprelay.config.RelayProperties;

/**
 * A bound configuration as units of change, compared by binding, never by splitting a printed path: each server and
 * virtual server by its id as the bound map holds it (an id may hold dots: {@code acme.tools}), with each of its
 * settings by name; the default server; each element of a list, and otherwise each section, by the paths of its values
 * (no id is part of those). A unit is named as an operator writes it under {@code mcp-relay}: {@code servers.jira},
 * {@code servers.[acme.tools]}, {@code rate-limits[1]}; an API key by its client, {@code security.api-keys[alice]}.
 */
final class BoundSettings {

	/** The sections whose map keys are ids. */
	static final Set<String> KEYED = Set.of("servers", "virtual-servers");

	private BoundSettings() {
	}

	/** Each unit of {@code properties}, with its settings by name (or by path), in a stable order. */
	static Map<String, Map<String, Object>> of(RelayProperties properties) {
		Map<String, Map<String, Object>> units = new LinkedHashMap<>();
		for (RecordComponent section : RelayProperties.class.getRecordComponents()) {
			String name = dashed(section.getName());
			Object value = read(section, properties);
			if (KEYED.contains(name)) {
				((Map<?, ?>) value).forEach((id, entry) -> units.put(name + "." + written(String.valueOf(id)),
						settings(entry)));
			}
			else if (value != null) {
				Map<String, String> keys = name.equals("security") ? apiKeyUnits(properties) : Map.of();
				BoundPropertyTree.walk("", Map.of(name, value), (path, leaf) -> {
					String unit = unit(path.substring(1));
					String named = keys.getOrDefault(unit, unit);
					// a key's settings by their paths under its name, so that a key moved in the list compares equal
					units.computeIfAbsent(named, any -> new LinkedHashMap<>())
						.put(named + path.substring(1 + unit.length()), String.valueOf(leaf));
				});
			}
		}
		return units;
	}

	/**
	 * Each API key's unit by its {@code client} ({@code security.api-keys[alice]}), never by its index (removing the first
	 * key would name every later one changed) nor by anything of the key; a key whose client is unset or shared with
	 * another keeps its index.
	 */
	private static Map<String, String> apiKeyUnits(RelayProperties properties) {
		List<ApiKeyProperties> keys = properties.security() == null ? List.of() : properties.security().apiKeys();
		Map<String, Long> clients = keys.stream()
			.map(key -> String.valueOf(key.client()))
			.collect(Collectors.groupingBy(client -> client, Collectors.counting()));
		Map<String, String> units = new HashMap<>();
		for (int i = 0; i < keys.size(); i++) {
			String client = keys.get(i).client();
			if (client != null && !client.isBlank() && clients.get(client) == 1) {
				units.put("security.api-keys[" + i + "]", "security.api-keys[" + written(client) + "]");
			}
		}
		return units;
	}

	/** Whether {@code unit} is a server's ({@code servers.<id>}). */
	static boolean isServer(String unit) {
		return unit.startsWith("servers.");
	}

	/** An id as written in a property path: in brackets when it holds a dot. */
	static String written(String id) {
		return id.contains(".") ? "[" + id + "]" : id;
	}

	/** A server's (or virtual server's) settings by name: each a value compared whole. */
	private static Map<String, Object> settings(Object entry) {
		Map<String, Object> settings = new LinkedHashMap<>();
		if (entry != null) {
			for (RecordComponent component : entry.getClass().getRecordComponents()) {
				settings.put(dashed(component.getName()), read(component, entry));
			}
		}
		return settings;
	}

	/** The unit of an unkeyed section's path: a list element, or the first two segments. */
	private static String unit(String path) {
		int bracket = path.indexOf('[');
		if (bracket >= 0) {
			return path.substring(0, path.indexOf(']', bracket) + 1);
		}
		String[] segments = path.split("\\.");
		return segments.length > 1 ? segments[0] + "." + segments[1] : segments[0];
	}

	private static Object read(RecordComponent component, Object record) {
		try {
			return component.getAccessor().invoke(record);
		}
		catch (IllegalAccessException | InvocationTargetException ex) {
			throw new IllegalStateException("Cannot read " + component.getName(), ex);
		}
	}

	private static String dashed(String camel) {
		return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
	}

}
