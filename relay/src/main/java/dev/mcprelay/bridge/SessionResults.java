package dev.mcprelay.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.McpMeta;

/**
 * A 2026-07-28 server's message as a 2025 client of a bridged session reads it: a result loses what only the new
 * generation has ({@code resultType}, {@code ttlMs}, {@code cacheScope}, the {@code serverInfo} of its {@code _meta}),
 * a notification of a {@code subscriptions/listen} stream loses the {@code subscriptionId} of its {@code _meta} (the
 * client's GET stream is no subscription it made), and a result that asks the client for input
 * ({@code resultType: input_required}), which a 2025 client cannot read, becomes a JSON-RPC error that says so
 * (-32603, {@code data.reason: input_required_not_bridged}) instead of a result it would misread, where nothing carries
 * it through its rounds ({@link InputRounds} does, for the answer to a client's request).
 */
final class SessionResults {

	private SessionResults() {
	}

	/** Whether {@code message} is a result that asks the client for input ({@code resultType: input_required}). */
	static boolean asksForInput(ObjectNode message) {
		return message.get("result") instanceof ObjectNode result
				&& "input_required".equals(result.path("resultType").asText());
	}

	/** {@code message} (a JSON-RPC message of the server's) in the client's generation; changed in place. */
	static ObjectNode toSession(ObjectNode message, String serverId) {
		if (message.get("result") instanceof ObjectNode result) {
			if (asksForInput(message)) {
				return inputRequiredRefusal(message, serverId);
			}
			result.remove("resultType");
			result.remove("ttlMs");
			result.remove("cacheScope");
			dropMeta(result, McpMeta.SERVER_INFO);
		}
		else if (message.get("params") instanceof ObjectNode params && !message.has("id")) {
			dropMeta(params, McpMeta.SUBSCRIPTION_ID);
		}
		return message;
	}

	private static ObjectNode inputRequiredRefusal(ObjectNode message, String serverId) {
		JsonNode id = message.get("id");
		ObjectNode refusal = message.objectNode();
		refusal.put("jsonrpc", "2.0");
		refusal.set("id", id);
		ObjectNode error = refusal.putObject("error");
		error.put("code", -32603);
		error.put("message", "MCP server '" + serverId + "' asked the client for input (sampling, elicitation or "
				+ "roots) in MCP 2026-07-28's way, where the relay cannot carry it to a 2025 client");
		error.putObject("data").put("reason", "input_required_not_bridged");
		return refusal;
	}

	private static void dropMeta(ObjectNode holder, String key) {
		if (holder.get("_meta") instanceof ObjectNode meta) {
			meta.remove(key);
			if (meta.isEmpty()) {
				holder.remove("_meta");
			}
		}
	}

}
