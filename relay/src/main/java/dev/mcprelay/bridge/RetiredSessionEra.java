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
 * was answered 400 -32022 for ever).
 *
 * <p>The refused request is the client's, shaped as it chose (a server of both generations refuses a request whose
 * {@code _meta} carries a 2026 envelope claiming 2025-11-25 so, review 46f F1; a 2025 server may answer -32022 by
 * mistake, F3): the refusal alone decides nothing for anyone. The relay asks the server an {@code initialize} of its
 * own ({@link SessionEraProbe}, once per {@link ServerVersions#PROBE_INTERVAL}): only when the server refuses that one
 * as a server of the new generation does the session end, and the versions that refusal names are learnt; else the
 * client's refusal is handed on to it as it came (a 400 read whole, within the server's {@code max-buffered-body}, and
 * replayed byte for byte), its session goes on, and nothing is learnt. Any other answer is handed on as it came.
 *
 * <p>The client waits for the relay's {@code initialize} only until half its own {@code timeouts.non-streaming} has
 * passed since its request was sent (review 46h, N1: a server slow to open a session had the client told 504
 * {@code upstream_timeout} for a request the server answered at once); past that its refusal is handed on as it came,
 * and the verdict, when it comes, decides for the refusals after it.
 */
final class RetiredSessionEra {

	private final UpstreamTransport server;

	private final String serverId;

	private final long maxBytes;

	private final SessionEraProbe probe;

	/**
	 * @param probe the relay's own {@code initialize} of the server, shared with the bridge's other uses of it
	 * (which waits for it at most half the client's deadline)
	 */
	RetiredSessionEra(UpstreamTransport server, String serverId, SessionEraProbe probe, long maxBytes) {
		this.server = server;
		this.serverId = serverId;
		this.maxBytes = maxBytes;
		this.probe = probe;
	}

	/** Relays {@code request} (of a relayed session, not a bridged one) and hands the answer to {@code handler}. */
	Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		String version = request.headers().getFirst("MCP-Protocol-Version");
		if (request.sessionId() == null || version == null || ProtocolVersions.isPerRequest(version)) {
			return server.send(request, handler);
		}
		return Mono.defer(() -> {
			long sent = System.nanoTime();
			return server.send(request, response -> refused(request, version, sent, response, handler));
		});
	}

	private Mono<Void> refused(UpstreamRequest request, String version, long sent, UpstreamResponse response,
			Function<UpstreamResponse, Mono<Void>> handler) {
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
			// the client's request, shaped as it chose: only the relay's own initialize decides
			return probe.ask(request, sent).flatMap(verdict -> verdict != SessionEraProbe.Verdict.RETIRED
					? handler.apply(LocalUpstreamResponse.replay(response.statusCode(), response.headers(), body))
					: Mono.error(new UpstreamTransportException(Kind.UNKNOWN_SESSION, "session_ended",
							"MCP server '" + serverId + "' no longer speaks this session's protocol version "
									+ version + " (it speaks " + supported + "): the session ended; initialize "
									+ "again")));
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
