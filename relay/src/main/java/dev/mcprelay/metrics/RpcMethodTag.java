package dev.mcprelay.metrics;

import java.util.Set;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcPayload;

/** Maps a POST body to its bounded {@link RelayMeters#RPC_METHOD} tag value. */
public final class RpcMethodTag {

	/** The client-to-server methods MCP defines (2025-03-26 to 2026-07-28). */
	private static final Set<String> KNOWN = Set.of("initialize", "ping", "tools/list", "tools/call", "prompts/list",
			"prompts/get", "resources/list", "resources/templates/list", "resources/read", "resources/subscribe",
			"resources/unsubscribe", "completion/complete", "logging/setLevel", "tasks/get", "tasks/list",
			"tasks/result", "tasks/cancel", "notifications/initialized", "notifications/cancelled",
			"notifications/progress", "notifications/roots/list_changed", "notifications/tasks/status",
			"subscriptions/listen");

	static final String NONE = "none";

	private RpcMethodTag() {
	}

	/** Whether {@code method} is one a client sends that MCP defines: a bounded tag value as it is. */
	public static boolean isClientMethod(String method) {
		return KNOWN.contains(method);
	}

	static String of(JsonRpcPayload payload) {
		if (payload == null) {
			return NONE;
		}
		if (payload.batch()) {
			return "batch";
		}
		JsonRpcMessage message = payload.first();
		if (message == null) {
			return NONE;
		}
		if (message.isResponse()) {
			return "response";
		}
		return KNOWN.contains(message.method()) ? message.method() : "other";
	}

}
