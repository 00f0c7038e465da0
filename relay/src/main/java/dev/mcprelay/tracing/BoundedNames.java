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

	/**
	 * Per kind ({@code tools}, {@code prompts}), per server: the admitted names. Looked up by the two keys as they
	 * come, so that a call's tag value costs no key made for it.
	 */
	private final Map<String, Map<String, Set<String>>> byKindAndServer = new ConcurrentHashMap<>();

	/** Admits the names of the {@code kind} ({@code tools} or {@code prompts}) the server listed in {@code list}. */
	void admit(String server, String kind, JsonNode list) {
		Set<String> known = byKindAndServer.computeIfAbsent(kind, key -> new ConcurrentHashMap<>())
			.computeIfAbsent(String.valueOf(server), key -> ConcurrentHashMap.newKeySet());
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
		Map<String, Set<String>> ofKind = byKindAndServer.get(kind);
		Set<String> known = ofKind == null ? null : ofKind.get(String.valueOf(server));
		return known != null && known.contains(name) ? name : McpAttributes.OTHER;
	}

}
