package dev.mcprelay.bridge;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Direction 2 of the bridge: a 2026-07-28 client's request to a server that speaks only session-era MCP. Each request
 * goes in the upstream session the relay keeps for the client ({@link UpstreamSessions}, opened on first use), as a
 * 2025 server requires it ({@link LegacyRequests}), under an id the relay mints (clients that share the session may
 * use the same ids), and its answer, JSON or an event stream, comes back in the 2026 form ({@link ModernResults}) under
 * the client's id; notifications on the answer's stream (progress, log messages) pass as they are. A request the
 * server answers with 404 (the session ended there) goes once more, in a session opened again. {@code server/discover}
 * is answered from the session's {@code initialize}, without asking the server. A notification goes in the session
 * and is answered as the server answers it (202). {@code subscriptions/listen} is served by the session's GET stream
 * ({@link LegacyListen}).
 *
 * <p>Not carried yet: a request the server sends while it answers (sampling, elicitation, roots), which the server
 * gets an error for (-32601, {@code server_request_not_bridged}), the client's request going on. Any other answer of the server (an error status) is handed on with its status and body, without
 * the server's session id.
 */
final class LegacyBridge {

	private static final String ID_PREFIX = "mcp-relay-bridged-";

	private final UpstreamTransport server;

	private final String serverId;

	private final long maxBytes;

	private final UpstreamSessions sessions;

	private final LegacyListen listens;

	private final AtomicLong ids = new AtomicLong();

	LegacyBridge(UpstreamTransport server, String serverId, long maxBytes, UpstreamSessions sessions) {
		this.server = server;
		this.serverId = serverId;
		this.maxBytes = maxBytes;
		this.sessions = sessions;
		this.listens = new LegacyListen(server, serverId, maxBytes);
	}

	/**
	 * Opens the session of the client of {@code request} (a 2026 request a server of unknown versions refused), to
	 * learn whether the server speaks session-era MCP; completes either way, what it learnt in {@link ServerVersions}.
	 */
	Mono<Void> probe(UpstreamRequest request) {
		ObjectNode message = BridgedAnswers.parse(request.body());
		if (message == null) {
			return Mono.empty();
		}
		return sessions.find(request, ModernClient.of(request.callerId(), message)).then()
			.onErrorResume(refused -> Mono.empty());
	}

	/** A 2026-07-28 client's POST. */
	Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return Mono.defer(() -> {
			ObjectNode message = BridgedAnswers.parse(request.body());
			if (message == null || !message.path("method").isTextual()) {
				request.onWritten().run();
				return handler.apply(LocalUpstreamResponse.json(new HttpHeaders(), bytes(error(
						message == null ? null : message.get("id"), -32600, "A 2026-07-28 request to MCP server '"
								+ serverId + "' is one JSON-RPC request or notification", "bridge_invalid_request"))));
			}
			String method = message.get("method").asText();
			JsonNode id = message.get("id");
			ModernClient client = ModernClient.of(request.callerId(), message);
			Runnable onWritten = once(request.onWritten());
			return sessions.find(request, client).flatMap(session -> {
				if (id != null && "server/discover".equals(method)) {
					onWritten.run();
					return handler.apply(LocalUpstreamResponse.json(new HttpHeaders(),
							bytes(ModernResults.discover(id, session))));
				}
				if (id != null && "subscriptions/listen".equals(method)) {
					return listens.listen(request, message, session, onWritten,
							serverRequest -> refuse(request, session, serverRequest), handler);
				}
				return exchange(request, message, client, session, onWritten, true, handler);
			});
		});
	}

	private Mono<Void> exchange(UpstreamRequest request, ObjectNode message, ModernClient client,
			UpstreamSession session, Runnable onWritten, boolean mayReopen,
			Function<UpstreamResponse, Mono<Void>> handler) {
		ObjectNode sent = message.deepCopy();
		JsonNode id = message.get("id");
		String minted = id == null ? null : ID_PREFIX + ids.incrementAndGet();
		if (minted != null) {
			sent.put("id", minted);
		}
		String method = message.path("method").asText();
		return server.send(LegacyRequests.inSession(request, sent, session, onWritten), response -> {
			if (response.statusCode().value() == HttpStatus.NOT_FOUND.value() && mayReopen) {
				return response.releaseBody()
					.then(Mono.defer(() -> sessions.reopen(request, client)))
					.flatMap(reopened -> exchange(request, message, client, reopened, onWritten, false, handler));
			}
			if (!response.statusCode().is2xxSuccessful()) {
				return handOn(response, handler);
			}
			if (response.contentType() == null) {
				return response.releaseBody()
					.then(Mono.defer(() -> handler.apply(LocalUpstreamResponse.empty(HttpStatus.ACCEPTED))));
			}
			BridgedAnswers.Turn turn = new BridgedAnswers.Turn(answer -> {
				if (minted != null && minted.equals(answer.path("id").asText(null)) && !answer.has("method")) {
					answer.set("id", id);
					return ModernResults.toModern(answer, method, session);
				}
				return answer;
			}, answer -> answer.has("method") && answer.has("id") ? refuse(request, session, answer) : null);
			return BridgedAnswers.relay(response, serverId, maxBytes, new HttpHeaders(), any -> true, Mono.never(),
					turn, handler);
		});
	}

	/**
	 * Answers a request the server sent on a bridged answer's stream with an error in the session, since the relay does
	 * not carry it to a 2026 client yet; nothing of it reaches the client.
	 */
	private Flux<byte[]> refuse(UpstreamRequest request, UpstreamSession session, ObjectNode serverRequest) {
		ObjectNode refusal = error(serverRequest.get("id"), -32601, "The relay does not carry "
				+ serverRequest.path("method").asText() + " to the client (it speaks MCP 2026-07-28) yet",
				"server_request_not_bridged");
		return server.send(LegacyRequests.inSession(request, refusal, session, null), UpstreamResponse::releaseBody)
			.onErrorResume(failed -> Mono.empty())
			.thenMany(Flux.empty());
	}

	/** An error answer of the server's, its status and body as they came, without the server's session id. */
	private Mono<Void> handOn(UpstreamResponse response, Function<UpstreamResponse, Mono<Void>> handler) {
		HttpHeaders headers = new HttpHeaders();
		headers.addAll(response.headers());
		headers.remove("Mcp-Session-Id");
		headers.remove(HttpHeaders.CONTENT_LENGTH);
		return BridgeBodies.read(response.body(), maxBytes, serverId)
			.flatMap(body -> handler.apply(LocalUpstreamResponse.replay(response.statusCode(), headers, body)));
	}

	/** A JSON-RPC error for request {@code id} ({@code null}: none), with {@code data.reason}. */
	static ObjectNode error(JsonNode id, int code, String message, String reason) {
		ObjectNode error = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
		error.set("id", id == null ? JsonNodeFactory.instance.nullNode() : id);
		ObjectNode body = error.putObject("error").put("code", code).put("message", message);
		body.putObject("data").put("reason", reason);
		return error;
	}

	private static Runnable once(Runnable action) {
		AtomicBoolean ran = new AtomicBoolean();
		return () -> {
			if (ran.compareAndSet(false, true)) {
				action.run();
			}
		};
	}

	private static byte[] bytes(JsonNode node) {
		return node.toString().getBytes(StandardCharsets.UTF_8);
	}

}
