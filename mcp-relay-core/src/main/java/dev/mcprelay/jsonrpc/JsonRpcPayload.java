package dev.mcprelay.jsonrpc;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * The JSON-RPC content of one HTTP body: a single message, or a batch (allowed by MCP 2025-03-26). The raw bytes
 * are kept so that an unchanged body is relayed byte for byte.
 *
 * @param raw the body exactly as received
 * @param messages the valid messages, in order; one unless {@code batch}
 * @param batch whether the body was a JSON array
 * @param invalidAnswers for a client's batch, the error answering each element that is not a valid message (with
 * its id when it had one); such elements are never forwarded
 */
public record JsonRpcPayload(byte[] raw, List<JsonRpcMessage> messages, boolean batch,
		List<ObjectNode> invalidAnswers) {

	public JsonRpcPayload {
		messages = List.copyOf(messages);
		invalidAnswers = List.copyOf(invalidAnswers);
	}

	public JsonRpcPayload(byte[] raw, List<JsonRpcMessage> messages, boolean batch) {
		this(raw, messages, batch, List.of());
	}

	/** Whether every message is valid, so that the raw bytes may be forwarded as they are. */
	public boolean isWhole() {
		return invalidAnswers.isEmpty();
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

	/** The first valid message; for a single-message payload, the message; {@code null} when there is none. */
	public JsonRpcMessage first() {
		return messages.isEmpty() ? null : messages.get(0);
	}

}
