package dev.mcprelay.api.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Builds the JSON-RPC 2.0 messages the relay writes itself, other than errors (see {@link JsonRpcErrors}). */
public final class JsonRpcMessages {

	private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

	private JsonRpcMessages() {
	}

	/** A successful response carrying {@code result} for the request {@code id}. */
	public static ObjectNode result(JsonNode id, JsonNode result) {
		ObjectNode response = NODES.objectNode().put("jsonrpc", "2.0");
		response.set("id", id == null ? NullNode.instance : id);
		response.set("result", result);
		return response;
	}

	/** A notification of {@code method} with {@code params}. */
	public static ObjectNode notification(String method, ObjectNode params) {
		ObjectNode notification = NODES.objectNode().put("jsonrpc", "2.0").put("method", method);
		notification.set("params", params);
		return notification;
	}

}
