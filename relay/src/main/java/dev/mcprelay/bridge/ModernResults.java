package dev.mcprelay.bridge;

import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.McpMeta;
import dev.mcprelay.jsonrpc.ProtocolVersions;

/**
 * A 2025 server's message as a 2026-07-28 client reads it (direction 2 of the bridge): a result says it is complete
 * ({@code resultType: complete}) and names the server ({@code io.modelcontextprotocol/serverInfo} in its
 * {@code _meta}, from the upstream session's {@code initialize}); the result of a method 2026-07-28 lets clients cache
 * ({@link #CACHEABLE}) says how long it may be kept and by whom: {@code ttlMs: 0} (the relay cannot know; the client
 * asks again) and {@code cacheScope: private} (it came from a session of this caller's, and is never to be shared with
 * another). Notifications and errors read the same in both generations and are left as they are. The server's own
 * {@code server/discover} answer is made from the session ({@link #discover}).
 */
final class ModernResults {

	/** The methods whose 2026-07-28 results carry {@code ttlMs} and {@code cacheScope}. */
	static final Set<String> CACHEABLE = Set.of("server/discover", "tools/list", "prompts/list", "resources/list",
			"resources/templates/list", "resources/read");

	private ModernResults() {
	}

	/** {@code message}, the server's answer to a request of {@code method}, in the 2026 form; changed in place. */
	static ObjectNode toModern(ObjectNode message, String method, UpstreamSession session) {
		if (message.get("result") instanceof ObjectNode result) {
			complete(result, method, session);
		}
		return message;
	}

	/** The answer to a 2026 client's {@code server/discover} with {@code id}, from the upstream session it goes in. */
	static ObjectNode discover(JsonNode id, UpstreamSession session) {
		ObjectNode answer = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
		answer.set("id", id);
		ObjectNode result = answer.putObject("result");
		result.putArray("supportedVersions").add(ProtocolVersions.PER_REQUEST);
		result.set("capabilities", session.capabilities().isObject() ? session.capabilities().deepCopy()
				: JsonNodeFactory.instance.objectNode());
		if (session.instructions() != null) {
			result.put("instructions", session.instructions());
		}
		complete(result, "server/discover", session);
		return answer;
	}

	private static void complete(ObjectNode result, String method, UpstreamSession session) {
		result.put("resultType", "complete");
		if (CACHEABLE.contains(method)) {
			if (!result.has("ttlMs")) {
				result.put("ttlMs", 0);
			}
			if (!result.has("cacheScope")) {
				result.put("cacheScope", "private");
			}
		}
		if (session.serverInfo().isObject()) {
			JsonNode given = result.get("_meta");
			if (given == null || given instanceof ObjectNode) {
				ObjectNode meta = given == null ? result.putObject("_meta") : (ObjectNode) given;
				if (!meta.has(McpMeta.SERVER_INFO)) {
					meta.set(McpMeta.SERVER_INFO, session.serverInfo());
				}
			}
		}
	}

}
