package dev.mcprelay.proxy;

import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessages;
import dev.mcprelay.jsonrpc.McpMeta;
import dev.mcprelay.sse.SseEventWriter;

/**
 * The stream of a {@code subscriptions/listen} request (MCP 2026-07-28): the server's stream to the client, quiet by
 * design, so that its silence is no failure. Like a GET stream, idle ends it normally and shutdown ends it at once;
 * unlike one, the relay ends it as the protocol ends a subscription, with its result.
 */
final class ListenStreams {

	/** The long-lived request whose stream carries the server's notifications. */
	static final String LISTEN = "subscriptions/listen";

	private ListenStreams() {
	}

	/** Whether {@code call} is a POST of a {@code subscriptions/listen} request. */
	static boolean isListen(RelayCall call) {
		return call.plan() != null && call.plan().payload().contains(LISTEN);
	}

	/**
	 * The event that ends a subscription the relay tears down: a successful result with {@code resultType: complete}
	 * and the subscription id (the listen request's id) in {@code _meta}, as a server ends one.
	 */
	static byte[] complete(McpRequest listen) {
		ObjectNode meta = JsonNodeFactory.instance.objectNode();
		meta.set(McpMeta.SUBSCRIPTION_ID, listen.id());
		ObjectNode result = JsonNodeFactory.instance.objectNode().put("resultType", "complete");
		result.set("_meta", meta);
		return SseEventWriter.message(new String(JsonRpcErrors.toBytes(JsonRpcMessages.result(listen.id(), result)),
				StandardCharsets.UTF_8));
	}

}
