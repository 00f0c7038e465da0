package dev.mcprelay.bridge;

import java.util.List;
import java.util.function.Function;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.ProtocolVersions;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import dev.mcprelay.transport.UpstreamTransportException;
import dev.mcprelay.transport.UpstreamTransportException.Kind;
import reactor.core.publisher.Mono;

/**
 * A request of a session-era session the relay relays to the server unbridged (a 2025 client's), when the server was
 * redeployed as one that no longer speaks the session's version: it refuses the request with HTTP 400 and the
 * JSON-RPC error -32022 (unsupported protocol version) naming only versions of the other generation. The session
 * cannot continue on that server, so it ends as the bridge's own sessions end ({@code session_ended}, HTTP 404): a 2025
 * client initializes again on a 404 only, and its new {@code initialize} is then bridged (review 46e, N6: every request
 * was answered 400 -32022 for ever). The versions the refusal names are learnt (within {@link ServerVersions}' bound,
 * when the request named only versions the relay knows, {@link NamedVersions}). Any other answer is handed on as it
 * came (a 400 read whole, within the server's {@code max-buffered-body}, and replayed byte for byte).
 */
final class RetiredSessionEra {

	private final UpstreamTransport server;

	private final String serverId;

	private final ServerVersions versions;

	private final long maxBytes;

	RetiredSessionEra(UpstreamTransport server, String serverId, ServerVersions versions, long maxBytes) {
		this.server = server;
		this.serverId = serverId;
		this.versions = versions;
		this.maxBytes = maxBytes;
	}

	/** Relays {@code request} (of a relayed session, not a bridged one) and hands the answer to {@code handler}. */
	Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		String version = request.headers().getFirst("MCP-Protocol-Version");
		if (request.sessionId() == null || version == null || ProtocolVersions.isPerRequest(version)) {
			return server.send(request, handler);
		}
		return server.send(request, response -> {
			MediaType type = response.contentType();
			if (response.statusCode().value() != HttpStatus.BAD_REQUEST.value() || type == null
					|| !MediaType.APPLICATION_JSON.isCompatibleWith(type)) {
				return handler.apply(response);
			}
			return BridgeBodies.read(response.body(), maxBytes, serverId).flatMap(body -> {
				List<String> supported = Refusals.supportedVersions(body);
				if (code(body) != -32022 || supported.isEmpty() || ProtocolVersions.sameEraIn(version, supported)) {
					return handler.apply(LocalUpstreamResponse.replay(response.statusCode(), response.headers(), body));
				}
				if (NamedVersions.allKnown(request)) {
					versions.learn(supported);
				}
				return Mono.error(new UpstreamTransportException(Kind.UNKNOWN_SESSION, "session_ended", "MCP server '"
						+ serverId + "' no longer speaks this session's protocol version " + version + " (it speaks "
						+ supported + "): the session ended; initialize again"));
			});
		});
	}

	private static int code(byte[] body) {
		try {
			JsonNode answer = JsonRpcParser.mapper().readTree(body);
			return answer == null ? 0 : answer.path("error").path("code").asInt();
		}
		catch (java.io.IOException | RuntimeException notJson) {
			return 0;
		}
	}

}
