package dev.mcprelay.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.McpMeta;
import dev.mcprelay.jsonrpc.ProtocolVersions;
import dev.mcprelay.transport.UpstreamRequest;

/**
 * Whether a client's request names only protocol versions the relay knows ({@link ProtocolVersions#KNOWN}), where a
 * request names them: its {@code MCP-Protocol-Version} header, an {@code initialize}'s {@code params.protocolVersion},
 * and the 2026-07-28 envelope's {@code params._meta["io.modelcontextprotocol/protocolVersion"]}.
 *
 * <p>Why: a server's refusal of a request teaches its versions ({@link ServerVersions#learn}) only as far as the refusal
 * is about the versions the relay serves. A client that names a version of its own invention (a newer revision, or an
 * attacker's {@code 2099-01-01}) makes a server of both generations refuse it on one generation's path, naming only that
 * generation's versions; learnt, that would decide for every other caller how the server is spoken to (review 46c,
 * finding 1). Such a refusal is handed on to its client and teaches nothing.
 */
final class NamedVersions {

	private NamedVersions() {
	}

	/** Whether every version {@code request} names is one the relay knows (a request that names none does). */
	static boolean allKnown(UpstreamRequest request) {
		String header = request.headers().getFirst("MCP-Protocol-Version");
		if (header != null && !ProtocolVersions.isKnown(header)) {
			return false;
		}
		ObjectNode message = request.body() == null ? null : BridgedAnswers.parse(request.body());
		if (message == null) {
			return true;
		}
		JsonNode params = message.path("params");
		return knownOrAbsent(params.get("protocolVersion"))
				&& knownOrAbsent(params.path("_meta").get(McpMeta.PROTOCOL_VERSION));
	}

	private static boolean knownOrAbsent(JsonNode version) {
		return version == null || version.isNull() || (version.isTextual() && ProtocolVersions.isKnown(version.asText()));
	}

}
