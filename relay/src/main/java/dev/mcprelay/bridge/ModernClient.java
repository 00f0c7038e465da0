package dev.mcprelay.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.Sha256;
import dev.mcprelay.jsonrpc.McpMeta;

/**
 * Who a 2026-07-28 request comes from, as the bridge to a 2025-only server needs it: the caller the front door let in,
 * and the client info and capabilities the request's {@code _meta} envelope declares. Requests of one caller with one
 * envelope share an upstream session ({@link UpstreamSessions}); another caller, or the same caller declaring other
 * capabilities, gets a session of its own, opened with its own {@code initialize}.
 *
 * @param callerId who the front door let in ({@code null}: nobody was asked; every client is then one caller)
 * @param clientInfo the envelope's client info (an object; an unnamed client when the request declares none)
 * @param capabilities the envelope's client capabilities (an object)
 */
record ModernClient(String callerId, JsonNode clientInfo, JsonNode capabilities) {

	/** The client of {@code message}, a 2026-07-28 request of {@code callerId}'s. */
	static ModernClient of(String callerId, ObjectNode message) {
		JsonNode meta = message.path("params").path("_meta");
		JsonNode info = meta.path(McpMeta.CLIENT_INFO);
		JsonNode capabilities = meta.path(McpMeta.CLIENT_CAPABILITIES);
		JsonNode unnamed = JsonNodeFactory.instance.objectNode().put("name", "unknown").put("version", "0");
		return new ModernClient(callerId, info.isObject() ? info : unnamed,
				capabilities.isObject() ? capabilities : JsonNodeFactory.instance.objectNode());
	}

	/**
	 * What names this client's upstream session in the store: a SHA-256 of the caller and the envelope, so that the
	 * store's key says nothing of either.
	 */
	String key() {
		return Sha256.hex((callerId == null ? "" : "caller:" + callerId) + '\n' + clientInfo + '\n' + capabilities);
	}

}
