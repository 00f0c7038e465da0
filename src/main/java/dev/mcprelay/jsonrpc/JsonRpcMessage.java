package dev.mcprelay.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One validated JSON-RPC 2.0 message: a request, a notification or a response.
 *
 * @param kind what the message is
 * @param node the whole message as parsed, unknown fields and {@code _meta} included
 */
public record JsonRpcMessage(Kind kind, ObjectNode node) {

	/** The three shapes of a JSON-RPC message. */
	public enum Kind {
		/** Has a method and an id: expects a response. */
		REQUEST,
		/** Has a method and no id: expects nothing back. */
		NOTIFICATION,
		/** Has an id and a result or an error. */
		RESPONSE
	}

	/** The id of a request or response, {@code null} for a notification. */
	public JsonNode id() {
		return node.get("id");
	}

	/** The method of a request or notification, {@code null} for a response. */
	public String method() {
		JsonNode method = node.get("method");
		return method == null ? null : method.asText();
	}

	public boolean isRequest() {
		return kind == Kind.REQUEST;
	}

	public boolean isResponse() {
		return kind == Kind.RESPONSE;
	}

	/** Whether this response carries an {@code error} rather than a {@code result}. */
	public boolean isError() {
		return kind == Kind.RESPONSE && node.has("error");
	}

}
