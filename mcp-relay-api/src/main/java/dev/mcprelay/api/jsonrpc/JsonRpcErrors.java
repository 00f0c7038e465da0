package dev.mcprelay.api.jsonrpc;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Builds JSON-RPC 2.0 error responses, the only shape in which the relay reports a failure to a client. */
public final class JsonRpcErrors {

	private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

	/** The field of an error's {@code data} a program reads first: why the request failed. */
	private static final String REASON = "reason";

	private JsonRpcErrors() {
	}

	/**
	 * One error response.
	 *
	 * @param id the id of the request it answers, or {@code null} when there is none (id becomes JSON null)
	 * @param code a {@link JsonRpcErrorCodes} code
	 * @param message a short user-facing sentence, never internal details
	 * @param data extra machine-readable fields, or {@code null}; written in one order whatever the map's own:
	 * {@code reason} first, then the others by name, so that every replica writes one error the same way
	 * ({@code Map.of}'s order changes from one JVM to the next)
	 */
	public static ObjectNode error(JsonNode id, int code, String message, Map<String, String> data) {
		if (data == null || data.isEmpty()) {
			return error(id, code, message, (JsonNode) null);
		}
		ObjectNode dataNode = NODES.objectNode();
		if (data.containsKey(REASON)) {
			dataNode.put(REASON, data.get(REASON));
		}
		new TreeMap<>(data).forEach((name, value) -> {
			if (!REASON.equals(name)) {
				dataNode.put(name, value);
			}
		});
		return error(id, code, message, dataNode);
	}

	/**
	 * One error response whose {@code data} is any JSON value.
	 *
	 * @param data the error's {@code data}, or {@code null} for none
	 */
	public static ObjectNode error(JsonNode id, int code, String message, JsonNode data) {
		ObjectNode error = NODES.objectNode().put("code", code).put("message", message);
		if (data != null) {
			error.set("data", data);
		}
		ObjectNode response = NODES.objectNode().put("jsonrpc", "2.0");
		response.set("id", id == null ? NullNode.instance : id);
		response.set("error", error);
		return response;
	}

	/**
	 * The body answering a payload whose requests all failed the same way: one error for a single request or for no
	 * request at all (id null), an array of errors, one per request id, for a batch.
	 */
	public static byte[] body(List<JsonNode> requestIds, boolean batch, int code, String message,
			Map<String, String> data) {
		JsonNode body;
		if (batch && !requestIds.isEmpty()) {
			ArrayNode array = NODES.arrayNode();
			requestIds.forEach(id -> array.add(error(id, code, message, data)));
			body = array;
		}
		else {
			body = error(requestIds.isEmpty() ? null : requestIds.get(0), code, message, data);
		}
		return toBytes(body);
	}

	public static byte[] toBytes(JsonNode node) {
		try {
			return JsonRpcJson.mapper().writeValueAsBytes(node);
		}
		catch (JsonProcessingException ex) {
			throw new IllegalStateException("A JSON tree could not be written", ex);
		}
	}

}
