package dev.mcprelay.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;

/**
 * A session the relay opened with a 2025-only server on behalf of 2026-07-28 clients of one caller (direction 2 of the
 * bridge, {@link UpstreamSessions}): what its {@code initialize} answered, kept as one small JSON text in the session
 * store, so that each 2026 request goes in the session and {@code server/discover} is answered from it.
 *
 * @param sessionId the server's {@code Mcp-Session-Id} ({@code null}: the server keeps no session)
 * @param version the session-era version the server answered, sent as {@code MCP-Protocol-Version}
 * @param capabilities the server's capabilities
 * @param serverInfo the server's {@code serverInfo}
 * @param instructions the server's instructions, or {@code null}
 */
record UpstreamSession(String sessionId, String version, JsonNode capabilities, JsonNode serverInfo,
		String instructions) {

	/** The text kept in the store. */
	String toJson() {
		ObjectNode node = JsonNodeFactory.instance.objectNode();
		node.put("sessionId", sessionId);
		node.put("version", version);
		node.set("capabilities", capabilities);
		node.set("serverInfo", serverInfo);
		node.put("instructions", instructions);
		return node.toString();
	}

	/** The session kept as {@code json}; {@code null} when it is no such text. */
	static UpstreamSession fromJson(String json) {
		try {
			JsonNode node = JsonRpcParser.mapper().readTree(json);
			if (node == null || !node.path("version").isTextual()) {
				return null;
			}
			return new UpstreamSession(node.path("sessionId").asText(null), node.path("version").asText(),
					node.path("capabilities"), node.path("serverInfo"), node.path("instructions").asText(null));
		}
		catch (java.io.IOException ex) {
			return null;
		}
	}

}
