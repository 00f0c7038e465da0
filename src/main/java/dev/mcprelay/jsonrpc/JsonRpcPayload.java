package dev.mcprelay.jsonrpc;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The JSON-RPC content of one HTTP body: a single message, or a batch (allowed by MCP 2025-03-26). The raw bytes
 * are kept so that an unchanged body is relayed byte for byte.
 *
 * @param raw the body exactly as received
 * @param messages the messages, in order; one unless {@code batch}
 * @param batch whether the body was a JSON array
 */
public record JsonRpcPayload(byte[] raw, List<JsonRpcMessage> messages, boolean batch) {

	public JsonRpcPayload {
		messages = List.copyOf(messages);
	}

	/** The ids of the requests in this payload, in order: what the sender waits to be answered. */
	public List<JsonNode> requestIds() {
		return messages.stream().filter(JsonRpcMessage::isRequest).map(JsonRpcMessage::id).toList();
	}

	/** Whether a request or notification of this payload has {@code method}. */
	public boolean contains(String method) {
		for (JsonRpcMessage message : messages) {
			if (method.equals(message.method())) {
				return true;
			}
		}
		return false;
	}

	/** The first message; for a single-message payload, the message. */
	public JsonRpcMessage first() {
		return messages.get(0);
	}

}
