package dev.mcprelay.bridge;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import dev.mcprelay.transport.UpstreamTransportException;
import dev.mcprelay.transport.UpstreamTransportException.Kind;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Direction 1 of the bridge: a 2025 client's session with a 2026-only server, by the client's HTTP method.
 * <ul>
 * <li><b>initialize</b> ({@link #open}, {@link BridgedInitialize}): the relay answers it from the server's
 * {@code server/discover}, and the client gets a session of the relay's ({@link BridgeSessions});</li>
 * <li><b>POST</b> in the session ({@link #send}): a request goes to the server as a 2026-07-28 request
 * ({@link ModernRequests}) and its answer comes back in the client's generation ({@link BridgedAnswers}), a result that
 * asks for input carried through its rounds ({@link InputRounds}); a notification or response alone is accepted (202)
 * and goes no further, since 2026-07-28 has no channel for it, except the client's answer to a server request a round
 * waits for ({@link ClientAnswers}) and {@code notifications/cancelled}, which ends the request it names on this
 * replica, the exchange with the server cancelled (closing a request's connection is 2026-07-28's cancellation); a
 * batch is refused, each request with -32600; a {@code ping} is answered by the relay (2026-07-28 has none, and the
 * session it asks about is the relay's);</li>
 * <li><b>GET</b> ({@link #listen}): the server's {@code subscriptions/listen}, for the list changes its capabilities
 * announce, its acknowledgement and end kept from the client; 405 when it announces none;</li>
 * <li><b>DELETE</b> ({@link #end}): the session ends in the store, and its GET stream and requests in flight on this
 * replica with it.</li>
 * </ul>
 * A session id the store does not hold for the caller fails as an unknown session (404); a session whose server a
 * reload has since pinned to versions of the client's generation ends at its next request ({@code session_ended}, 404),
 * and so does one whose server refuses its request as a session-era server does and was found redeployed as one
 * ({@link RedeployedServers}). A request naming a tool, prompt or resource whose {@code Mcp-Name} would be too long
 * ({@link ModernRequests#nameTooLong}) is answered with an error (-32602, {@code mcp_name_too_long}), never sent.
 */
final class SessionBridge {

	private static final String LISTEN_ID = "mcp-relay-listen";

	private final UpstreamTransport server;

	private final String serverId;

	private final ServerVersions versions;

	private final BridgeSessions sessions;

	private final long maxBytes;

	/**
	 * The GET streams this replica holds, by session: a DELETE here ends them. This and the next two are the server's
	 * ({@link ServerFlights}), shared with the bridge a reload makes for it.
	 */
	private final Map<String, Sinks.Empty<Void>> streams;

	/** The requests in flight on this replica, by session and id ({@link #callKey}): cancelling one ends it. */
	private final Map<String, Sinks.Empty<Void>> calls;

	private final ClientAnswers answers;

	private final ServerFlights flights;

	private final InputRounds rounds;

	private final RedeployedServers stillModern;

	private final BridgedInitialize initialize;

	/** A bridge whose own {@code server/discover} carries no credentials ({@link ServerCredentials#NONE}): for tests. */
	SessionBridge(UpstreamTransport server, String serverId, ServerVersions versions, BridgeSessions sessions,
			long maxBytes, java.time.Duration roundTimeout) {
		this(server, serverId, versions, sessions, maxBytes, roundTimeout, new ModernProbe(server, serverId, maxBytes));
	}

	/**
	 * @param roundTimeout how long a round of input waits for the client's answers ({@link InputRounds})
	 * @param probe the relay's own {@code server/discover} of the server, which alone revises what is known of it
	 */
	SessionBridge(UpstreamTransport server, String serverId, ServerVersions versions, BridgeSessions sessions,
			long maxBytes, java.time.Duration roundTimeout, ModernProbe probe) {
		this.server = server;
		this.serverId = serverId;
		this.versions = versions;
		this.sessions = sessions;
		this.maxBytes = maxBytes;
		ServerFlights flights = sessions.flights();
		this.streams = flights.streams;
		this.calls = flights.calls;
		this.answers = flights.answers;
		this.flights = flights;
		this.rounds = new InputRounds(server, serverId, maxBytes, roundTimeout, answers);
		this.stillModern = new RedeployedServers(probe, versions);
		this.initialize = new BridgedInitialize(server, serverId, versions, sessions, maxBytes, probe);
	}

	/** How many of the clients' answers to server requests rounds wait for now, on this replica. */
	int awaitedAnswers() {
		return answers.awaited();
	}

	/**
	 * Answers a 2025 client's {@code initialize} from the server's {@code server/discover}, opening a session
	 * ({@link BridgedInitialize}); one the server refuses as a session-era server does goes to {@code unbridged}, when
	 * given.
	 */
	Mono<Void> open(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler,
			Supplier<Mono<Void>> unbridged) {
		return initialize.open(request, handler, unbridged);
	}

	/**
	 * The client of {@code request}'s bridged session. A session whose server a reload has since pinned to versions of
	 * the session era ({@link ServerVersions#pinnedToSessionEra}: every session the bridge gives is a 2025 client's)
	 * cannot continue: the server is now spoken to as the client speaks, and holds no session of the client's. It is
	 * ended in the store, and the request fails as for a session that ended ({@code session_ended}, 404): the client
	 * initializes again, and is relayed directly. Every later request of it is answered so too, not only the first
	 * (which may be the relay's own in the session: a listing that reads what the called tool declares).
	 */
	private Mono<BridgedClient> session(UpstreamRequest request) {
		if (!versions.pinnedToSessionEra()) {
			return sessions.require(request.sessionId(), request.callerId());
		}
		UpstreamTransportException ended = new UpstreamTransportException(Kind.UNKNOWN_SESSION, "session_ended",
				"This MCP session of server '" + serverId + "' has ended: a configuration reload pinned the server's "
						+ "protocol versions to the client's; initialize a new one.");
		// found (it is the caller's): ended in the store; not found (ended already, or never the caller's): nothing
		// is changed, and the answer is the same
		return sessions.require(request.sessionId(), request.callerId())
			.flatMap(client -> sessions.end(request.sessionId(), request.callerId())
				.then(Mono.<BridgedClient>error(ended)))
			.onErrorMap(failure -> failure instanceof UpstreamTransportException unknown
					&& unknown.kind() == Kind.UNKNOWN_SESSION, failure -> ended);
	}

	/** A POST of the client's in its bridged session. */
	Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return session(request).flatMap(client -> {
			JsonNode body = parseAny(request.body());
			if (body instanceof ArrayNode batch) {
				request.onWritten().run();
				return handler.apply(LocalUpstreamResponse.json(new HttpHeaders(), bytes(refuseBatch(batch))));
			}
			if (!(body instanceof ObjectNode message) || !message.has("method") || !message.has("id")) {
				// a notification or a response: 2026-07-28 has no channel for it, and it needs no answer; but an
				// answer a round of input waits for goes to it, and a cancellation ends the request it names
				if (body instanceof ObjectNode other) {
					if (!other.has("method")) {
						// kept, if a round waits for it, in the caller's share of the budget past this POST's 202: no
						// room, and the POST is refused (relay_overloaded), the round still waiting for it
						return Mono.deferContextual(context -> {
							answers.answer(request.sessionId(), other, request.body(),
									CallerShare.of(context)::keep);
							request.onWritten().run();
							return handler.apply(LocalUpstreamResponse.empty(HttpStatus.ACCEPTED));
						});
					}
					else if ("notifications/cancelled".equals(other.path("method").asText())) {
						cancel(callKey(request.sessionId(), other.path("params").path("requestId")));
					}
				}
				request.onWritten().run();
				return handler.apply(LocalUpstreamResponse.empty(HttpStatus.ACCEPTED));
			}
			if (message.get("params") instanceof ObjectNode params) {
				// what the server gives and is given back between rounds is the relay's to carry, never the client's
				params.remove(List.of("inputResponses", "requestState"));
			}
			if (ModernRequests.nameTooLong(message)) {
				request.onWritten().run();
				return handler.apply(LocalUpstreamResponse.json(new HttpHeaders(), bytes(PerRequestBridge.error(
						message.get("id"), -32602, "The name this request gives (a tool's, a prompt's, a resource's "
								+ "URI) is longer than the relay can send to MCP server '" + serverId + "', which "
								+ "speaks only 2026-07-28 and reads it in the Mcp-Name header (at most "
								+ ModernRequests.MAX_NAME_HEADER_BYTES + " bytes as sent)", "mcp_name_too_long"))));
			}
			if ("ping".equals(message.path("method").asText())) {
				// 2026-07-28 has no ping (its server answers -32601): the session the client asks about is the relay's
				request.onWritten().run();
				ObjectNode pong = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
				pong.set("id", message.get("id"));
				pong.putObject("result");
				return handler.apply(LocalUpstreamResponse.json(new HttpHeaders(), bytes(pong)));
			}
			InputRounds.Call call = new InputRounds.Call(request, message.deepCopy(), client, request.sessionId());
			String key = callKey(request.sessionId(), message.get("id"));
			Sinks.Empty<Void> cancelled = Sinks.empty();
			calls.put(key, cancelled);
			Function<UpstreamResponse, Mono<Void>> relay = response -> BridgedAnswers.relay(response, serverId,
					maxBytes, new HttpHeaders(), any -> true, cancelled.asMono(), new BridgedAnswers.Turn(this::toSession,
							answer -> SessionResults.asksForInput(answer) ? rounds.after(call, answer) : null, true),
					handler);
			long sent = System.nanoTime();
			return server.send(ModernRequests.of(request, message, client, request.onWritten()),
					response -> answered(response, request, sent, client, relay))
				.doFinally(signal -> calls.remove(key, cancelled));
		});
	}

	/**
	 * The server's answer to a request of the session, handed to {@code relay}; but a refusal that a session-era server
	 * gives ({@link Refusals#bySessionEraServer}: a 400 for a request without a session) from a server that no longer
	 * speaks 2026-07-28 ({@link RedeployedServers#noLongerModern}) ends the session: the client initializes again, and is relayed as it
	 * speaks.
	 */
	private Mono<Void> answered(UpstreamResponse response, UpstreamRequest request, long sent, BridgedClient client,
			Function<UpstreamResponse, Mono<Void>> relay) {
		if (!response.statusCode().is4xxClientError()) {
			return relay.apply(response);
		}
		return BridgeBodies.read(response.body(), maxBytes, serverId).flatMap(body -> {
			UpstreamResponse refused = LocalUpstreamResponse.replay(response.statusCode(), response.headers(), body);
			if (!Refusals.bySessionEraServer(response.statusCode(), body)) {
				return relay.apply(refused);
			}
			return stillModern.noLongerModern(request, client, sent).flatMap(revised -> !revised ? relay.apply(refused)
					: sessions.end(request.sessionId(), request.callerId()).then(Mono.defer(() -> {
						flights.endStream(request.sessionId());
						return Mono.error(new UpstreamTransportException(Kind.UNKNOWN_SESSION, "session_ended",
								"This MCP session of server '" + serverId + "' has ended: the server no longer speaks "
										+ "MCP 2026-07-28, which the relay bridged the session to; initialize a new "
										+ "one."));
					})));
		});
	}

	private ObjectNode toSession(ObjectNode message) {
		return SessionResults.toSession(message, serverId);
	}

	private void cancel(String key) {
		Sinks.Empty<Void> call = calls.remove(key);
		if (call != null) {
			call.tryEmitEmpty();
		}
	}

	/** Where a request of {@code sessionId} with {@code id} is kept while in flight. */
	private static String callKey(String sessionId, JsonNode id) {
		return sessionId + ' ' + id;
	}

	/** The client's GET stream: the server's {@code subscriptions/listen} for the list changes it announces. */
	Mono<Void> listen(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return session(request).flatMap(client -> {
			ObjectNode notifications = JsonNodeFactory.instance.objectNode();
			for (String list : List.of("tools", "prompts", "resources")) {
				if (client.serverCapabilities().path(list).path("listChanged").asBoolean(false)) {
					notifications.put(list + "ListChanged", true);
				}
			}
			if (notifications.isEmpty()) {
				request.onWritten().run();
				return handler.apply(LocalUpstreamResponse.empty(HttpStatus.METHOD_NOT_ALLOWED));
			}
			ObjectNode listen = request("subscriptions/listen", LISTEN_ID);
			((ObjectNode) listen.get("params")).set("notifications", notifications);
			Sinks.Empty<Void> ended = Sinks.empty();
			Sinks.Empty<Void> previous = streams.put(request.sessionId(), ended);
			if (previous != null) {
				previous.tryEmitEmpty();
			}
			return server.send(ModernRequests.of(request, listen, client, request.onWritten()),
					response -> BridgedAnswers.relay(response, serverId, maxBytes, new HttpHeaders(),
							SessionBridge::forTheClientsStream, ended.asMono(),
							new BridgedAnswers.Turn(this::toSession, null, false), handler))
				.doFinally(signal -> streams.remove(request.sessionId(), ended));
		});
	}

	/** DELETE: ends the session, and its GET stream here. */
	Mono<Void> end(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return session(request)
			.then(sessions.end(request.sessionId(), request.callerId()))
			.then(Mono.defer(() -> {
				flights.endStream(request.sessionId());
				String prefix = request.sessionId() + ' ';
				calls.keySet().stream().filter(key -> key.startsWith(prefix)).toList().forEach(this::cancel);
				request.onWritten().run();
				return handler.apply(LocalUpstreamResponse.empty(HttpStatus.OK));
			}));
	}

	/** What of a listen stream reaches a 2025 client's GET stream: not the subscription's acknowledgement nor its end. */
	private static boolean forTheClientsStream(ObjectNode message) {
		return !message.has("id") && !"notifications/subscriptions/acknowledged".equals(message.path("method").asText());
	}

	private static ArrayNode refuseBatch(ArrayNode batch) {
		ArrayNode answers = JsonNodeFactory.instance.arrayNode();
		batch.forEach(message -> {
			if (message.has("method") && message.has("id")) {
				ObjectNode refusal = answers.addObject().put("jsonrpc", "2.0");
				refusal.set("id", message.get("id"));
				refusal.putObject("error").put("code", -32600).put("message", "A batch cannot be carried to an MCP "
						+ "server that speaks only 2026-07-28; send one message per request");
			}
		});
		return answers;
	}

	static ObjectNode request(String method, String id) {
		ObjectNode request = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0").put("id", id).put("method",
				method);
		request.putObject("params");
		return request;
	}

	private static JsonNode parseAny(byte[] body) {
		try {
			return JsonRpcParser.mapper().readTree(body);
		}
		catch (java.io.IOException ex) {
			return null;
		}
	}

	private static byte[] bytes(JsonNode node) {
		return node.toString().getBytes(StandardCharsets.UTF_8);
	}

}
