package dev.mcprelay.intercept;

import java.util.List;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcErrors;
import dev.mcprelay.jsonrpc.JsonRpcPayload;

/**
 * The messages of one upstream body or SSE event after the server-to-client stages: as received, or with some
 * changed or replaced.
 *
 * @param received the body or event data as the upstream sent it
 * @param messages the messages to relay, in order
 * @param changed whether any message was changed or replaced, so that the bytes must be re-encoded
 */
public record RemoteMessages(JsonRpcPayload received, List<ObjectNode> messages, boolean changed) {

	/** The bytes to relay: the upstream's own when nothing changed. */
	public byte[] bytes() {
		return bytesWith(List.of());
	}

	/**
	 * The bytes to relay with {@code extra} answers after the upstream's: a JSON array when there are any, since one
	 * HTTP body then carries several messages.
	 */
	public byte[] bytesWith(List<ObjectNode> extra) {
		if (!changed && extra.isEmpty()) {
			return received.raw();
		}
		if (!received.batch() && extra.isEmpty()) {
			return JsonRpcErrors.toBytes(messages.get(0));
		}
		ArrayNode array = JsonNodeFactory.instance.arrayNode(messages.size() + extra.size());
		array.addAll(messages);
		array.addAll(extra);
		return JsonRpcErrors.toBytes(array);
	}

}
