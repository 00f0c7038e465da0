package dev.mcprelay.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;

/**
 * What a 2025 client declared once, in its {@code initialize}, and a 2026 server needs in every request: kept for the
 * client's bridged session ({@link BridgeSessions}) as one small JSON text in the session store.
 *
 * @param version the session-era version the session speaks (the client's, answered in its {@code initialize})
 * @param clientInfo the client's {@code clientInfo}, as it sent it
 * @param capabilities the client's {@code capabilities}, as it sent them
 * @param serverCapabilities the server's capabilities from its {@code server/discover}, which decide what the client's
 * GET stream listens to
 */
record BridgedClient(String version, JsonNode clientInfo, JsonNode capabilities, JsonNode serverCapabilities) {

	/** The text kept in the store. */
	String toJson() {
		ObjectNode node = JsonNodeFactory.instance.objectNode();
		node.put("version", version);
		node.set("clientInfo", clientInfo);
		node.set("capabilities", capabilities);
		node.set("serverCapabilities", serverCapabilities);
		return node.toString();
	}

	/** The client kept as {@code json}; {@code null} when it is no such text. */
	static BridgedClient fromJson(String json) {
		try {
			JsonNode node = JsonRpcParser.mapper().readTree(json);
			if (node == null || !node.path("version").isTextual()) {
				return null;
			}
			return new BridgedClient(node.path("version").asText(), node.path("clientInfo"), node.path("capabilities"),
					node.path("serverCapabilities"));
		}
		catch (java.io.IOException ex) {
			return null;
		}
	}

}
