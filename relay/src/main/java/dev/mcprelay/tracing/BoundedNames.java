package dev.mcprelay.tracing;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The tool and prompt names a server's meters may carry as tag values: only names the server itself listed, in a
 * {@code tools/list} or {@code prompts/list} result the relay passed on, never a name a client put in a call (a client
 * could otherwise mint a series per call, and fill the cap so that a real tool is {@value McpAttributes#OTHER}); at
 * most {@value #MAX_PER_SERVER} of each kind per server, each cut to {@value TelemetryText#MAX_LENGTH} characters. Any
 * other name is {@value McpAttributes#OTHER}. A tool called before any client listed the server's tools is
 * {@value McpAttributes#OTHER} until one does. Thread-safe.
 */
final class BoundedNames {

	static final int MAX_PER_SERVER = 100;

	/** Per server, per kind ({@code tools}, {@code prompts}): the admitted names. */
	private final Map<String, Set<String>> byServerAndKind = new ConcurrentHashMap<>();

	/** Admits the names of the {@code kind} ({@code tools} or {@code prompts}) the server listed in {@code list}. */
	void admit(String server, String kind, JsonNode list) {
		Set<String> known = byServerAndKind.computeIfAbsent(server + ' ' + kind, key -> ConcurrentHashMap.newKeySet());
		for (JsonNode item : list) {
			if (known.size() >= MAX_PER_SERVER) {
				return;
			}
			JsonNode name = item.get("name");
			if (name != null && name.isTextual()) {
				known.add(TelemetryText.cut(name.asText()));
			}
		}
	}

	/**
	 * The tag value for {@code name} (a tool's when {@code kind} is {@code tools}, a prompt's when {@code prompts}) of
	 * {@code server}; {@code ""} when there is no name.
	 */
	String tagValue(String server, String kind, String name) {
		if (name == null) {
			return "";
		}
		Set<String> known = byServerAndKind.get(server + ' ' + kind);
		return known != null && known.contains(name) ? name : McpAttributes.OTHER;
	}

}
