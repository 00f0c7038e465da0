package dev.mcprelay.intercept;

import java.util.List;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcPayload;

/**
 * The messages of one upstream body or SSE event after the server-to-client stages: as received, or with some
 * changed, replaced or held back.
 *
 * @param received the body or event data as the upstream sent it
 * @param messages the messages to relay, in order (a message no interceptor saw unread, as scanned); a
 * server-to-client request an interceptor rejected is not among them
 * @param changed whether any message was changed, replaced or held back, so that the bytes must be re-encoded
 * @param upstreamAnswers the error responses that answer rejected server-to-client requests, to be sent to the
 * upstream (the server waits for them)
 * @param rejectionNotices for each rejected server-to-client request, a {@code notifications/message} at level
 * {@code warning} the client may be shown instead of nothing
 */
public record RemoteMessages(JsonRpcPayload received, List<JsonRpcMessage> messages, boolean changed,
		List<ObjectNode> upstreamAnswers, List<ObjectNode> rejectionNotices) {

	public RemoteMessages(JsonRpcPayload received, List<JsonRpcMessage> messages, boolean changed) {
		this(received, messages, changed, List.of(), List.of());
	}

	/** Whether nothing is left for the client. */
	public boolean isEmpty() {
		return messages.isEmpty();
	}

	/** The same, with the rejection notices among the messages for the client. */
	public RemoteMessages withNotices() {
		if (rejectionNotices.isEmpty()) {
			return this;
		}
		List<JsonRpcMessage> all = new java.util.ArrayList<>(messages);
		rejectionNotices.forEach(notice -> all.add(JsonRpcMessage.written(notice)));
		return new RemoteMessages(received, all, true, upstreamAnswers, List.of());
	}

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
		if (!received.batch() && extra.isEmpty() && messages.size() == 1) {
			return JsonRpcErrors.toBytes(messages.get(0).node());
		}
		ArrayNode array = JsonNodeFactory.instance.arrayNode(messages.size() + extra.size());
		messages.forEach(message -> array.add(message.node()));
		array.addAll(extra);
		return JsonRpcErrors.toBytes(array);
	}

}
