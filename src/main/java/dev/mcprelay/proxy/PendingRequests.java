package dev.mcprelay.proxy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The requests of a POST whose responses have not yet come back on its SSE stream, so that a stream that fails
 * can answer exactly those with an error. Ids compare by JSON value ({@code 1} and {@code "1"} differ). Used from
 * one stream's serialized signals only.
 */
final class PendingRequests {

	private final Map<String, JsonNode> pending = new LinkedHashMap<>();

	PendingRequests(List<JsonNode> requestIds) {
		requestIds.forEach(id -> pending.put(key(id), id));
	}

	void answered(JsonNode id) {
		if (id != null) {
			pending.remove(key(id));
		}
	}

	List<JsonNode> remaining() {
		return List.copyOf(pending.values());
	}

	private static String key(JsonNode id) {
		return (id.isTextual() ? "s:" : "n:") + id.asText();
	}

}
