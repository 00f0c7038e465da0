package dev.mcprelay.bridge;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.ProtocolVersions;
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
 * <li><b>initialize</b> ({@link #open}): the relay asks the server's {@code server/discover} (with the client's info
 * and capabilities) and answers the {@code initialize} itself: the version the client asked for (or 2025-11-25), the
 * server's capabilities (without {@code resources.subscribe}, which the session cannot carry yet), its name and
 * instructions; the client gets a session of the relay's ({@link BridgeSessions}). A discovery the server refuses with
 * a JSON-RPC error answers the {@code initialize} with that error, and no session is opened;</li>
 * <li><b>POST</b> in the session ({@link #send}): a request goes to the server as a 2026-07-28 request
 * ({@link ModernRequests}) and its answer comes back in the client's generation ({@link BridgedAnswers}), a result that
 * asks for input carried through its rounds ({@link InputRounds}); a notification or response alone is accepted (202)
 * and goes no further, since 2026-07-28 has no channel for it, except the client's answer to a server request a round
 * waits for ({@link ClientAnswers}) and {@code notifications/cancelled}, which ends the request it names on this
 * replica, the exchange with the server cancelled (closing a request's connection is 2026-07-28's cancellation); a
 * batch is refused, each request with -32600;</li>
 * <li><b>GET</b> ({@link #listen}): the server's {@code subscriptions/listen}, for the list changes its capabilities
 * announce, its acknowledgement and end kept from the client; 405 when it announces none;</li>
 * <li><b>DELETE</b> ({@link #end}): the session ends in the store, and its GET stream and requests in flight on this
 * replica with it.</li>
 * </ul>
 * A session id the store does not hold for the caller fails as an unknown session (404); a session whose server a
 * reload has since pinned to versions of the client's generation ends at its next request ({@code session_ended}, 404).
 */
final class SessionBridge {

	private static final String DISCOVER_ID = "mcp-relay-discover";

	private static final String LISTEN_ID = "mcp-relay-listen";

	private final UpstreamTransport server;

	private final String serverId;

	private final ServerVersions versions;

	private final BridgeSessions sessions;

	private final long maxBytes;

	/**
	 * The GET streams this replica holds, by session: a DELETE here ends them. This and the next two are the server's
	 * ({@link BridgeFlights}), shared with the bridge a reload makes for it.
	 */
	private final Map<String, Sinks.Empty<Void>> streams;

	/** The requests in flight on this replica, by session and id ({@link #callKey}): cancelling one ends it. */
	private final Map<String, Sinks.Empty<Void>> calls;

	private final ClientAnswers answers;

	private final InputRounds rounds;

	/** @param roundTimeout how long a round of input waits for the client's answers ({@link InputRounds}) */
	SessionBridge(UpstreamTransport server, String serverId, ServerVersions versions, BridgeSessions sessions,
			long maxBytes, java.time.Duration roundTimeout) {
		this.server = server;
		this.serverId = serverId;
		this.versions = versions;
		this.sessions = sessions;
		this.maxBytes = maxBytes;
		BridgeFlights flights = sessions.flights();
		this.streams = flights.streams;
		this.calls = flights.calls;
		this.answers = flights.answers;
		this.rounds = new InputRounds(server, serverId, maxBytes, roundTimeout, answers);
	}

	/** How many of the clients' answers to server requests rounds wait for now, on this replica. */
	int awaitedAnswers() {
		return answers.awaited();
	}

	/** Answers a 2025 client's {@code initialize} from the server's {@code server/discover}, opening a session. */
	Mono<Void> open(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return Mono.defer(() -> {
			ObjectNode initialize = BridgedAnswers.parse(request.body());
			JsonNode params = initialize.path("params");
			BridgedClient client = new BridgedClient(
					ProtocolVersions.sessionVersionFor(params.path("protocolVersion").asText(null)),
					params.path("clientInfo"), params.path("capabilities"), JsonNodeFactory.instance.objectNode());
			ObjectNode discover = request("server/discover", DISCOVER_ID);
			return server.send(ModernRequests.of(request, discover, client, request.onWritten()),
					response -> answerInitialize(initialize.get("id"), client, request, response, handler));
		});
	}

	private Mono<Void> answerInitialize(JsonNode id, BridgedClient client, UpstreamRequest request,
			UpstreamResponse response, Function<UpstreamResponse, Mono<Void>> handler) {
		MediaType type = response.contentType();
		boolean json = type != null && MediaType.APPLICATION_JSON.isCompatibleWith(type);
		boolean events = type != null && MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)
				&& response.statusCode().is2xxSuccessful();
		if (!json && !events) {
			int status = response.statusCode().value();
			return response.releaseBody().then(Mono.error(new UpstreamTransportException(Kind.UPSTREAM_FAILED,
					"bridge_discover_failed", "MCP server '" + serverId + "' speaks only MCP 2026-07-28, and "
							+ "answered the relay's server/discover with HTTP " + status + ", not with JSON nor an "
							+ "event stream.")));
		}
		// 2026-07-28 lets a server answer any request with an event stream: its answer is the first response in it
		Mono<byte[]> answered = json ? BridgeBodies.read(response.body(), maxBytes, serverId)
				: BridgedAnswers.firstAnswer(response, maxBytes)
					.onErrorMap(broken -> !(broken instanceof UpstreamTransportException),
							broken -> discoverFailed("answered the relay's server/discover with an event stream that "
									+ "broke off (" + broken.getClass().getSimpleName() + ")"))
					.switchIfEmpty(Mono.error(() -> discoverFailed("ended the event stream that answers the relay's "
							+ "server/discover before the answer")));
		return answered.flatMap(body -> {
			ObjectNode answer = BridgedAnswers.parse(body);
			JsonNode result = answer == null ? null : answer.get("result");
			if (!(result instanceof ObjectNode discovered)) {
				if (answer != null && answer.get("error") instanceof ObjectNode error) {
					ObjectNode refusal = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
					refusal.set("id", id);
					refusal.set("error", error);
					return handler.apply(LocalUpstreamResponse.json(new HttpHeaders(), bytes(refusal)));
				}
				return Mono.error(discoverFailed("answered the relay's server/discover with no result"));
			}
			versions.learn(texts(discovered.path("supportedVersions")));
			ObjectNode capabilities = discovered.get("capabilities") instanceof ObjectNode given ? given.deepCopy()
					: JsonNodeFactory.instance.objectNode();
			BridgedClient opened = new BridgedClient(client.version(), client.clientInfo(), client.capabilities(),
					capabilities.deepCopy());
			if (capabilities.get("resources") instanceof ObjectNode resources) {
				resources.remove("subscribe");
			}
			ObjectNode initialized = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
			initialized.set("id", id);
			ObjectNode result2025 = initialized.putObject("result");
			result2025.put("protocolVersion", client.version());
			result2025.set("capabilities", capabilities);
			JsonNode serverInfo = discovered.path("_meta").path(SessionResults.SERVER_INFO_META);
			result2025.set("serverInfo", serverInfo.isObject() ? serverInfo
					: JsonNodeFactory.instance.objectNode().put("name", serverId).put("version", "unknown"));
			if (discovered.path("instructions").isTextual()) {
				result2025.set("instructions", discovered.get("instructions"));
			}
			return sessions.open(request.callerId(), opened).flatMap(sessionId -> {
				HttpHeaders headers = new HttpHeaders();
				headers.set("Mcp-Session-Id", sessionId);
				return handler.apply(LocalUpstreamResponse.json(headers, bytes(initialized)));
			});
		});
	}

	/**
	 * The client of {@code request}'s bridged session. A session whose server a reload has since pinned to versions of
	 * the client's generation ({@link ServerVersions#pinnedToEraOf}) cannot continue: the server is now spoken to as
	 * the client speaks, and holds no session of the client's. It is ended in the store, and the request fails as for
	 * a session that ended ({@code session_ended}, 404): the client initializes again, and is relayed directly.
	 */
	private Mono<BridgedClient> session(UpstreamRequest request) {
		return sessions.require(request.sessionId(), request.callerId()).flatMap(client -> {
			if (!versions.pinnedToEraOf(client.version())) {
				return Mono.just(client);
			}
			return sessions.end(request.sessionId(), request.callerId())
				.then(Mono.error(() -> new UpstreamTransportException(Kind.UNKNOWN_SESSION, "session_ended",
						"This MCP session of server '" + serverId + "' has ended: a configuration reload pinned the "
								+ "server's protocol versions to the client's; initialize a new one.")));
		});
	}

	private UpstreamTransportException discoverFailed(String what) {
		return new UpstreamTransportException(Kind.UPSTREAM_FAILED, "bridge_discover_failed",
				"MCP server '" + serverId + "' " + what + ".");
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
						answers.answer(request.sessionId(), other);
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
			InputRounds.Call call = new InputRounds.Call(request, message.deepCopy(), client, request.sessionId());
			String key = callKey(request.sessionId(), message.get("id"));
			Sinks.Empty<Void> cancelled = Sinks.empty();
			calls.put(key, cancelled);
			return server.send(ModernRequests.of(request, message, client, request.onWritten()),
					response -> BridgedAnswers.relay(response, serverId, maxBytes, new HttpHeaders(), any -> true,
							cancelled.asMono(), new BridgedAnswers.Turn(this::toSession,
									answer -> SessionResults.asksForInput(answer) ? rounds.after(call, answer) : null, true),
							handler))
				.doFinally(signal -> calls.remove(key, cancelled));
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
				Sinks.Empty<Void> stream = streams.remove(request.sessionId());
				if (stream != null) {
					stream.tryEmitEmpty();
				}
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

	private static ObjectNode request(String method, String id) {
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

	private static List<String> texts(JsonNode array) {
		java.util.ArrayList<String> texts = new java.util.ArrayList<>();
		array.forEach(item -> {
			if (item.isTextual()) {
				texts.add(item.asText());
			}
		});
		return texts;
	}

	private static byte[] bytes(JsonNode node) {
		return node.toString().getBytes(StandardCharsets.UTF_8);
	}

}
