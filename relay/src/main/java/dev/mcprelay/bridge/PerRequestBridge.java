package dev.mcprelay.bridge;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.security.RelayMac;
import dev.mcprelay.sse.SseEventWriter;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.ServerRequestGate;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import dev.mcprelay.transport.UpstreamTransportException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Direction 2 of the bridge: a 2026-07-28 client's request to a server that speaks only session-era MCP. Each request
 * goes in the upstream session the relay keeps for the client ({@link UpstreamSessions}, opened on first use), as a
 * 2025 server requires it ({@link SessionEraRequests}), under an id the relay mints ({@code mcp-relay-bridged-} and 256
 * random bits, as direction 1's input rounds mint theirs: clients that share the session may use the same ids, and no
 * two bridges, those a reload makes for the server or those of other replicas sending in the same session, ever mint
 * the same, {@link BridgedCancellations}), and takes only the answer under its own id (one of another request's is
 * dropped); a request the client leaves before its answer (2026-07-28's cancellation) is told cancelled to the server
 * ({@code notifications/cancelled} naming that id, in the session); its answer, JSON or
 * an event stream, comes back in the 2026 form ({@link ModernResults}) under the client's id; notifications on the
 * answer's stream (progress, log messages) pass as they are. A request the server answers with 404 (the session ended
 * there), or with a 400 that answers no request (it forgot the session), goes once more, in a session opened again,
 * and a caller's calls held for a retry are bounded ({@link HeldCalls#MAX_PER_CALLER}). A request is first checked as a
 * 2026-07-28 server checks it ({@link ModernEnvelope}: its envelope, its version, a method 2026-07-28 removed), and
 * one that fails is answered with that server's error, never sent. {@code server/discover}
 * is answered from the session's {@code initialize}, without asking the server. A notification goes in the session
 * and is answered as the server answers it (202). {@code subscriptions/listen} is served by the session's GET stream
 * ({@link SessionEraListen}), which a 404 or a forgotten-session 400 opens again, as a POST's does.
 *
 * <p>A request the server sends while it answers a {@code tools/call}, {@code prompts/get} or {@code resources/read}
 * (sampling, elicitation, roots) ends the client's round with an {@code input_required} result whose
 * {@code requestState} the relay signs, the exchange held open for the client's retry ({@link HeldCalls},
 * {@link HeldCallRetries}), once the
 * relay's server-to-client stages let it ({@link GatedServerRequests}: a refusal answers the server); one sent
 * while it answers another request is answered to the server with an error (-32601,
 * {@code server_request_not_bridged}). Any other answer of the server (an error status) is handed on with its status
 * and body, without the server's session id.
 */
final class PerRequestBridge {

	private final UpstreamTransport server;

	private final String serverId;

	private final long maxBytes;

	private final UpstreamSessions sessions;

	private final ServerVersions versions;

	private final SessionEraListen listens;

	private final HeldCalls calls;

	private final ServerEraChecks checks;

	private final ForgottenSessions forgotten;

	private final GatedServerRequests gated;

	private final HeldCallRetries retries;

	private final BridgedCancellations cancellations;

	/** The methods whose answer may ask the client for input in 2026-07-28 ({@code input_required}). */
	private static final java.util.Set<String> INPUT_METHODS = java.util.Set.of("tools/call", "prompts/get",
			"resources/read");

	/**
	 * @param idle how long a call the server asked the client something in waits for the client's retry
	 * ({@link HeldCalls}: the server's {@code timeouts.streaming-idle})
	 * @param mac the relay's key, which signs a held call's {@code requestState} ({@link RequestStates})
	 * @param flights what the server's bridged sessions have in flight on this replica, shared with the bridge a
	 * reload makes for it: its held calls among them
	 * @param unrelayed what hears a list change of the server's that a client's listen did not ask for
	 * @param checks the relay's own requests, asked when an exchange in a client's session is refused as by a server
	 * of the other generation ({@link ServerEraChecks#recheck})
	 */
	PerRequestBridge(UpstreamTransport server, String serverId, long maxBytes, UpstreamSessions sessions,
			ServerVersions versions, java.time.Duration idle, RelayMac mac, ServerFlights flights,
			UnrelayedListChanges unrelayed, ServerEraChecks checks) {
		this.server = server;
		this.serverId = serverId;
		this.maxBytes = maxBytes;
		this.sessions = sessions;
		this.versions = versions;
		this.listens = new SessionEraListen(server, serverId, maxBytes, unrelayed, sessions.openTimeout());
		this.calls = new HeldCalls(new RequestStates(mac), flights.held, serverId, idle);
		this.checks = checks;
		this.forgotten = new ForgottenSessions(server, sessions.openTimeout());
		this.gated = new GatedServerRequests(server);
		this.retries = new HeldCallRetries(server, calls);
		this.cancellations = new BridgedCancellations(server, serverId, sessions.openTimeout(), flights.cancelling);
	}

	/** How many calls wait for their client's retry with its input, on this replica. */
	int heldCalls() {
		return calls.waiting();
	}

	/**
	 * A 2026-07-28 client's POST ({@code clientVersion}: the version it names). Should the server show, before
	 * anything was handed on, that it speaks 2026-07-28 now (it refused the session's {@code initialize}, or the
	 * request in the session, naming the versions it supports, and the relay's own {@code initialize} then taught
	 * that: {@link ServerEraChecks#recheck}), the request is relayed to it as it came.
	 */
	Mono<Void> send(UpstreamRequest request, String clientVersion, Function<UpstreamResponse, Mono<Void>> handler) {
		Runnable onWritten = once(request.onWritten());
		return bridged(request, clientVersion, onWritten, handler).onErrorResume(
				failed -> failed instanceof UpstreamTransportException refused
						&& "bridge_initialize_failed".equals(refused.reason()) && !versions.bridges(clientVersion),
				failed -> direct(request, onWritten, handler));
	}

	/** {@code request} relayed as the client sent it, the bridge no longer needed. */
	private Mono<Void> direct(UpstreamRequest request, Runnable onWritten,
			Function<UpstreamResponse, Mono<Void>> handler) {
		return server.send(new UpstreamRequest(request.serverId(), request.method(), request.uri(), request.headers(),
				request.body(), request.callerId(), onWritten), handler);
	}

	/**
	 * A 2026-07-28 client's POST, through the bridge; a request that fails a check a 2026-07-28 server makes
	 * ({@link ModernEnvelope}) is answered as such a server answers it, and never sent.
	 */
	private Mono<Void> bridged(UpstreamRequest request, String clientVersion, Runnable onWritten,
			Function<UpstreamResponse, Mono<Void>> handler) {
		return Mono.defer(() -> {
			ObjectNode message = BridgedAnswers.parse(request.body());
			if (message == null || !message.path("method").isTextual()) {
				onWritten.run();
				return handler.apply(LocalUpstreamResponse.json(new HttpHeaders(), bytes(error(
						message == null ? null : message.get("id"), -32600, "A 2026-07-28 request to MCP server '"
								+ serverId + "' is one JSON-RPC request or notification", "bridge_invalid_request"))));
			}
			String method = message.get("method").asText();
			JsonNode id = message.get("id");
			ModernEnvelope.Refusal refusal = id == null ? null : ModernEnvelope.check(message, clientVersion, serverId);
			if (refusal != null) {
				onWritten.run();
				HttpHeaders json = new HttpHeaders();
				json.setContentType(MediaType.APPLICATION_JSON);
				return handler.apply(LocalUpstreamResponse.replay(refusal.status(), json, bytes(refusal.error())));
			}
			ModernClient client = ModernClient.of(request.callerId(), message);
			if (id != null && INPUT_METHODS.contains(method)
					&& HeldCalls.isRelays(message.path("params").get("requestState"))) {
				// the held call knows its session: no other is looked up, nor opened
				return retries.resume(request, message, client, onWritten, handler);
			}
			return sessions.find(request, client).flatMap(session -> {
				if (id != null && "server/discover".equals(method)) {
					onWritten.run();
					return handler.apply(LocalUpstreamResponse.json(new HttpHeaders(),
							bytes(ModernResults.discover(id, session))));
				}
				if (id != null && "subscriptions/listen".equals(method)) {
					return listens.listen(request, message, client.key(), session, onWritten,
							(in, serverRequest) -> refuse(request, in, serverRequest), (status, in) -> forgotten
								.replaced(request, in, status, () -> sessions.reopen(request, client, in)), handler);
				}
				return exchange(request, message, client, session, onWritten, true, handler);
			});
		});
	}

	private Mono<Void> exchange(UpstreamRequest request, ObjectNode message, ModernClient client,
			UpstreamSession session, Runnable onWritten, boolean mayReopen,
			Function<UpstreamResponse, Mono<Void>> handler) {
		ObjectNode sent = message.deepCopy();
		BridgedCancellations.Sent minted = message.get("id") == null ? null : cancellations.mint(request, session);
		if (minted != null) {
			sent.put("id", minted.id);
		}
		if (minted != null && INPUT_METHODS.contains(message.path("method").asText())) {
			return held(request, message, sent, minted, client, session, onWritten, mayReopen, handler);
		}
		// 2026-07-28's cancellation (the client closed its stream before the answer) told as a 2025 client tells it
		return server.send(SessionEraRequests.inSession(request, sent, session, onWritten),
				response -> answered(response, request, message, minted, client, session, onWritten, mayReopen,
						handler))
			.doOnCancel(() -> {
				if (minted != null) {
					minted.abandon();
				}
			});
	}

	/**
	 * A request whose answer may ask the client for input: its exchange with the server is held apart from the
	 * client's stream ({@link HeldCalls}), so that a request of the server's on the answer's stream ends the client's
	 * round with an {@code input_required} result while the exchange goes on, for the client's retry to continue.
	 * Another answer than an event stream is answered as any; the client's leaving before it was asked anything ends
	 * the exchange (2026-07-28's cancellation), and the call's end before its answer tells the server it is cancelled.
	 */
	private Mono<Void> held(UpstreamRequest request, ObjectNode message, ObjectNode sent,
			BridgedCancellations.Sent minted,
			ModernClient client, UpstreamSession session, Runnable onWritten, boolean mayReopen,
			Function<UpstreamResponse, Mono<Void>> handler) {
		HeldCalls.Held held = calls.open(client.key(), String.valueOf(client.callerId()), message, session, minted);
		Sinks.One<UpstreamResponse> responded = Sinks.one();
		held.exchange = server.send(SessionEraRequests.inSession(request, sent, session, onWritten), response -> {
			responded.tryEmitValue(response);
			return held.done.asMono();
		}).subscribe(null, failed -> {
			responded.tryEmitError(failed);
			held.finish();
		}, () -> {
			// an exchange that ended without an answer ends the call too (what it keeps is given back)
			responded.tryEmitEmpty();
			held.finish();
		});
		String method = message.path("method").asText();
		// the relay's server-to-client stages, which the client's exchange brings: a server's request meets them first
		java.util.concurrent.atomic.AtomicReference<ServerRequestGate> gate = new java.util.concurrent.atomic
			.AtomicReference<>(ServerRequestGate.NONE);
		// the request as relayed, without its body: what the server's later requests on the call's stream need of it
		UpstreamRequest relayed = new UpstreamRequest(request.serverId(), request.method(), request.uri(),
				request.headers(), null, request.callerId(), null);
		return Mono.deferContextual(context -> {
			gate.set(ServerRequestGate.of(context));
			// what the call keeps of its request while it is held counts in its caller's share until it ends (review
			// 46m, M2): moved from its request's lease, as twice its body (the bytes and their tree, as read)
			held.keep(CallerShare.of(context).carry(request.body() == null ? 0 : 2L * request.body().length));
			return responded.asMono();
		}).flatMap(response -> {
			MediaType type = response.contentType();
			if (!response.statusCode().is2xxSuccessful() || type == null
					|| !MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)) {
				return answered(response, request, message, minted, client, session, onWritten, mayReopen, handler)
					.doFinally(signal -> held.finish());
			}
			BridgedAnswers.Turn turn = new BridgedAnswers.Turn(answer -> {
				if (minted.answeredBy(answer)) {
					answer.set("id", held.clientId);
					return ModernResults.toModern(answer, method, session);
				}
				return answer;
			}, answer -> answer.has("method") && answer.has("id")
					? gated.decide(gate.get(), answer, relayed, session, asked -> calls.ask(held, asked))
					: othersAnswer(answer, minted), true);
			// the round's events, taken before the server's first request can end the round (and let go of it)
			Flux<byte[]> events = held.events();
			BridgedAnswers.asEvents(response, serverId, maxBytes, turn).subscribe(held::emit, failed -> {
				held.emit(SseEventWriter.message(error(held.clientId, -32603, "MCP server '" + serverId
						+ "' broke off its answer", "upstream_stream_broken").toString()));
				held.finish();
			}, held::finish);
			return handler.apply(LocalUpstreamResponse.eventStream(new HttpHeaders(), events));
		}).doOnCancel(() -> {
			if (!held.asking) {
				held.finish();
			}
		});
	}

	/**
	 * The server's answer to a request of the client's, in the 2026 form. A 400 or a 404 that is no answer to the
	 * request (no JSON-RPC error under its id: a server that restarted and forgot the session says so, as the reference
	 * server's "No valid session ID provided" or "Session not found") opens the session again, once, when the server no
	 * longer knows the session ({@link ForgottenSessions}: else the status refused the request itself, and is handed
	 * on); the session it replaces is then ended. One that is an answer under the request's id is handed on, under the
	 * client's id.
	 */
	private Mono<Void> answered(UpstreamResponse response, UpstreamRequest request, ObjectNode message,
			BridgedCancellations.Sent minted, ModernClient client, UpstreamSession session, Runnable onWritten,
			boolean mayReopen, Function<UpstreamResponse, Mono<Void>> handler) {
		JsonNode id = message.get("id");
		if (minted != null && !response.statusCode().is2xxSuccessful()) {
			minted.answered();
		}
		String method = message.path("method").asText();
		int status = response.statusCode().value();
		if ((status == HttpStatus.BAD_REQUEST.value() || status == HttpStatus.NOT_FOUND.value()) && mayReopen) {
			return BridgeBodies.read(response.body(), maxBytes, serverId).flatMap(body -> {
				ObjectNode refusal = BridgedAnswers.parse(body);
				// the server's answer to the request (some servers answer a JSON-RPC error with a 404: review 46h N3),
				// under the client's id again
				if (refusal != null && minted != null && minted.id.equals(refusal.path("id").asText(null))) {
					refusal.set("id", id);
					return handOn(LocalUpstreamResponse.replay(response.statusCode(), response.headers(),
							refusal.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)), request, onWritten,
							handler);
				}
				// a refusal of the new generation's (a server redeployed as a 2026 one: handOn learns its versions):
				// not a session it forgot
				if (refusal != null && Refusals.ofNewGeneration(body)) {
					return handOn(LocalUpstreamResponse.replay(response.statusCode(), response.headers(), body),
							request, onWritten, handler);
				}
				// a 400 or 404 under no id is as often the request's own fault (a server that routes only some paths):
				// the session is opened again only when the server no longer knows it, and the session replaced is
				// ended (review 46h N3: every 404 re-opened, none ended)
				return forgotten.forgot(request, session).flatMap(gone -> !gone
						? handOn(LocalUpstreamResponse.replay(response.statusCode(), response.headers(), body), request,
								onWritten, handler)
						: forgotten.end(request, session)
							.then(Mono.defer(() -> sessions.reopen(request, client, session)))
							.flatMap(reopened -> exchange(request, message, client, reopened, onWritten, false,
									handler)));
			});
		}
		if (!response.statusCode().is2xxSuccessful()) {
			return handOn(response, request, onWritten, handler);
		}
		if (response.contentType() == null) {
			return response.releaseBody()
				.then(Mono.defer(() -> handler.apply(LocalUpstreamResponse.empty(HttpStatus.ACCEPTED))));
		}
		BridgedAnswers.Turn turn = new BridgedAnswers.Turn(answer -> {
			if (minted != null && minted.answeredBy(answer)) {
				answer.set("id", id);
				return ModernResults.toModern(answer, method, session);
			}
			return answer;
		}, answer -> answer.has("method") && answer.has("id") ? refuse(request, session, answer)
				: othersAnswer(answer, minted), true);
		return BridgedAnswers.relay(response, serverId, maxBytes, new HttpHeaders(), any -> true, Mono.never(),
				turn, handler);
	}

	/**
	 * Nothing, for a response on the stream of the request the relay sent as {@code minted} that answers another request
	 * (a server of one session may answer any of its requests on any stream): it is not this client's, and is dropped;
	 * {@code null} (the client's) for any other message.
	 */
	private static Flux<byte[]> othersAnswer(ObjectNode message, BridgedCancellations.Sent minted) {
		boolean response = !message.has("method") && (message.has("result") || message.has("error"));
		return response && !java.util.Objects.equals(minted == null ? null : minted.id, message.path("id").asText(null))
				? Flux.empty() : null;
	}

	/**
	 * Answers a request the server sent on a bridged answer's stream with an error in the session, since the relay does
	 * not carry it to a 2026 client yet; nothing of it reaches the client.
	 */
	private Flux<byte[]> refuse(UpstreamRequest request, UpstreamSession session, ObjectNode serverRequest) {
		ObjectNode refusal = error(serverRequest.get("id"), -32601, "The relay does not carry "
				+ serverRequest.path("method").asText() + " to the client (it speaks MCP 2026-07-28) yet",
				"server_request_not_bridged");
		return server.send(SessionEraRequests.inSession(request, refusal, session, null), UpstreamResponse::releaseBody)
			.onErrorResume(failed -> Mono.empty())
			.thenMany(Flux.empty());
	}

	/**
	 * An error answer of the server's, its status and body as they came, without the server's session id; but a
	 * refusal of the new generation's (the server may speak 2026-07-28 now: it was redeployed) makes the relay ask its
	 * own {@code initialize} ({@link ServerEraChecks#recheck}: the refusal came where the client's headers sent its
	 * request, and teaches nothing itself, review 46j N1), and when what that teaches says the client no longer needs
	 * the bridge, its request is relayed as it came.
	 */
	private Mono<Void> handOn(UpstreamResponse response, UpstreamRequest request, Runnable onWritten,
			Function<UpstreamResponse, Mono<Void>> handler) {
		HttpHeaders headers = new HttpHeaders();
		headers.addAll(response.headers());
		headers.remove("Mcp-Session-Id");
		headers.remove(HttpHeaders.CONTENT_LENGTH);
		return BridgeBodies.read(response.body(), maxBytes, serverId).flatMap(body -> {
			String clientVersion = VersionBridge.perRequestVersion(request);
			Mono<Void> checked = response.statusCode().is4xxClientError() && Refusals.ofNewGeneration(body)
					&& NamedVersions.allKnown(request) && clientVersion != null ? checks.recheck(request) : null;
			return checked == null ? handler.apply(LocalUpstreamResponse.replay(response.statusCode(), headers, body))
					: checked.then(Mono.defer(() -> !versions.bridges(clientVersion)
							? direct(request, onWritten, handler)
							: handler.apply(LocalUpstreamResponse.replay(response.statusCode(), headers, body))));
		});
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
