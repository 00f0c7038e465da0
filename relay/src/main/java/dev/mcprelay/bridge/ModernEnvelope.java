package dev.mcprelay.bridge;

import java.util.Set;

import org.springframework.http.HttpStatus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.McpMeta;
import dev.mcprelay.jsonrpc.ProtocolVersions;

/**
 * What a 2026-07-28 server checks of a request before it serves it, checked by the relay for a request it bridges to a
 * session-era server (direction 2, {@link PerRequestBridge}), which cannot: the envelope in {@code _meta} (its
 * {@code protocolVersion} and {@code clientCapabilities}), that version against the {@code MCP-Protocol-Version}
 * header, that version itself, and the methods 2026-07-28 removed. Runs once per bridged request, before its session
 * is looked up; reads the request and changes nothing. A request that fails a check is answered as a 2026-07-28 server
 * answers it (the official TypeScript SDK v2 and the conformance suite agree on these) and goes no further:
 * <ul>
 * <li>no {@code _meta} object, or one without {@code protocolVersion} or {@code clientCapabilities}: -32602, 400;</li>
 * <li>a {@code protocolVersion} that is not the header's: -32020 (header mismatch), 400;</li>
 * <li>a {@code protocolVersion} the relay does not bridge (not 2026-07-28): -32022, 400, {@code data.supported} and
 * {@code data.requested} naming what it bridges and what was asked;</li>
 * <li>{@code initialize}, {@code ping}, {@code logging/setLevel}, {@code resources/subscribe},
 * {@code resources/unsubscribe} (removed by 2026-07-28): -32601, 404.</li>
 * </ul>
 * Each error's {@code data.reason} is {@code bridge_envelope_invalid}, {@code bridge_header_mismatch},
 * {@code bridge_unsupported_version} or {@code bridge_method_removed}.
 */
final class ModernEnvelope {

	/** The methods of the session era that 2026-07-28 removed: a 2026 server does not know them. */
	static final Set<String> REMOVED = Set.of("initialize", "ping", "logging/setLevel", "resources/subscribe",
			"resources/unsubscribe");

	private ModernEnvelope() {
	}

	/** An answer to a request that failed a check: its HTTP status and JSON-RPC error. */
	record Refusal(HttpStatus status, ObjectNode error) {
	}

	/**
	 * The refusal of {@code message}, a request (it has an id) that named {@code headerVersion} in its
	 * {@code MCP-Protocol-Version} header, to server {@code serverId}; {@code null} when it passes every check.
	 */
	static Refusal check(ObjectNode message, String headerVersion, String serverId) {
		JsonNode id = message.get("id");
		String method = message.path("method").asText();
		JsonNode meta = message.path("params").path("_meta");
		JsonNode version = meta.path(McpMeta.PROTOCOL_VERSION);
		if (!meta.isObject() || !version.isTextual() || !meta.path(McpMeta.CLIENT_CAPABILITIES).isObject()) {
			return new Refusal(HttpStatus.BAD_REQUEST, PerRequestBridge.error(id, -32602, "A 2026-07-28 request carries "
					+ "its protocolVersion and clientCapabilities in params._meta (" + McpMeta.PROTOCOL_VERSION + ", "
					+ McpMeta.CLIENT_CAPABILITIES + ")", "bridge_envelope_invalid"));
		}
		if (!version.asText().equals(headerVersion)) {
			return new Refusal(HttpStatus.BAD_REQUEST, PerRequestBridge.error(id, -32020, "The MCP-Protocol-Version "
					+ "header and the protocolVersion in params._meta disagree", "bridge_header_mismatch"));
		}
		if (!ProtocolVersions.PER_REQUEST.equals(version.asText())) {
			ObjectNode refusal = PerRequestBridge.error(id, -32022, "The relay bridges MCP server '" + serverId
					+ "' to protocol version " + ProtocolVersions.PER_REQUEST + " only", "bridge_unsupported_version");
			ObjectNode data = (ObjectNode) refusal.path("error").path("data");
			data.putArray("supported").add(ProtocolVersions.PER_REQUEST);
			data.put("requested", version.asText());
			return new Refusal(HttpStatus.BAD_REQUEST, refusal);
		}
		if (REMOVED.contains(method)) {
			return new Refusal(HttpStatus.NOT_FOUND, PerRequestBridge.error(id, -32601, "Method not found: " + method
					+ " has no place in MCP 2026-07-28", "bridge_method_removed"));
		}
		return null;
	}

}
