package dev.mcprelay.bridge;

import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import java.util.function.Supplier;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.McpMeta;
import dev.mcprelay.jsonrpc.ProtocolVersions;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import dev.mcprelay.transport.UpstreamTransportException;
import dev.mcprelay.transport.UpstreamTransportException.Kind;
import reactor.core.publisher.Mono;

/**
 * A 2025 client's {@code initialize} of a 2026-only server, answered by the bridge ({@link SessionBridge}): the relay
 * asks the server's {@code server/discover} (with the client's info and capabilities) and answers the
 * {@code initialize} itself: the version the client asked for (or 2025-11-25), the server's capabilities (without
 * {@code resources.subscribe}, which the session cannot carry yet), its name and instructions; the client gets a
 * session of the relay's ({@link BridgeSessions}). A discovery the server refuses with a JSON-RPC error answers the
 * {@code initialize} with that error, and no session is opened; one it answers with neither JSON nor an event stream,
 * or a stream without the answer, fails it ({@code bridge_discover_failed}).
 */
final class BridgedInitialize {

	private static final String DISCOVER_ID = "mcp-relay-discover";

	private final UpstreamTransport server;

	private final String serverId;

	private final ServerVersions versions;

	private final BridgeSessions sessions;

	private final long maxBytes;

	private final ModernProbe probe;

	BridgedInitialize(UpstreamTransport server, String serverId, ServerVersions versions, BridgeSessions sessions,
			long maxBytes, ModernProbe probe) {
		this.server = server;
		this.serverId = serverId;
		this.versions = versions;
		this.sessions = sessions;
		this.maxBytes = maxBytes;
		this.probe = probe;
	}

	/**
	 * Answers a 2025 client's {@code initialize} from the server's {@code server/discover}, opening a session. A
	 * discovery the server refuses as a session-era server does ({@link Refusals#bySessionEraServer}: it may have been
	 * redeployed as one) makes the relay ask its own {@code server/discover} ({@link ModernProbe}); only when that is
	 * refused so too are the versions it learnt forgotten ({@link ServerVersions#forget}, within its bound), and the
	 * {@code initialize} handed to {@code unbridged} (relayed as it came), when given; else the refusal is the
	 * client's (its body's size, say), handed to it under its id, and nothing is revised. A refusal of the
	 * discovery's content ({@link Refusals#ofRequestContent}: the client's own {@code clientInfo} or
	 * {@code capabilities}, which the discovery carries) revises nothing, and is handed to the client under its id.
	 */
	Mono<Void> open(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler,
			Supplier<Mono<Void>> unbridged) {
		return Mono.defer(() -> {
			ObjectNode initialize = BridgedAnswers.parse(request.body());
			JsonNode params = initialize.path("params");
			BridgedClient client = new BridgedClient(
					ProtocolVersions.sessionVersionFor(params.path("protocolVersion").asText(null)),
					params.path("clientInfo"), params.path("capabilities"), JsonNodeFactory.instance.objectNode());
			ObjectNode discover = SessionBridge.request("server/discover", DISCOVER_ID);
			long sent = System.nanoTime();
			return server.send(ModernRequests.of(request, discover, client, request.onWritten()),
					response -> answerInitialize(initialize.get("id"), client, new Sent(request, sent), response,
							handler, unbridged));
		});
	}

	/** The client's {@code initialize}, and when the discovery made of it was sent ({@link System#nanoTime}). */
	private record Sent(UpstreamRequest request, long nanos) {
	}

	private Mono<Void> answerInitialize(JsonNode id, BridgedClient client, Sent sent, UpstreamResponse response,
			Function<UpstreamResponse, Mono<Void>> handler, Supplier<Mono<Void>> unbridged) {
		UpstreamRequest request = sent.request();
		MediaType type = response.contentType();
		boolean json = type != null && MediaType.APPLICATION_JSON.isCompatibleWith(type);
		boolean events = type != null && MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)
				&& response.statusCode().is2xxSuccessful();
		if (!json && !events) {
			int status = response.statusCode().value();
			Mono<Void> failed = Mono.error(new UpstreamTransportException(Kind.UPSTREAM_FAILED,
					"bridge_discover_failed", "MCP server '" + serverId + "' speaks only MCP 2026-07-28, and "
							+ "answered the relay's server/discover with HTTP " + status + ", not with JSON nor an "
							+ "event stream."));
			if (unbridged != null && Refusals.bySessionEraServer(response.statusCode(), null)) {
				return response.releaseBody()
					.then(redeployed(sent, "it refused the relay's server/discover with HTTP " + status))
					.flatMap(forgotten -> forgotten ? unbridged.get() : failed);
			}
			return response.releaseBody().then(failed);
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
				// a refusal of the discovery's content is the client's (its clientInfo, its capabilities): handed to it
				// below, what the relay knows of the server unrevised
				if (unbridged != null && Refusals.bySessionEraServer(response.statusCode(), body)
						&& !Refusals.ofRequestContent(body, DISCOVER_ID)) {
					return redeployed(sent, "it refused the relay's server/discover as a session-era server does")
						.flatMap(forgotten -> forgotten ? unbridged.get() : refuse(id, answer, handler));
				}
				return refuse(id, answer, handler);
			}
			// nothing is learnt from it: the discovery carried the client's headers (review 46j, N1)
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
			JsonNode serverInfo = discovered.path("_meta").path(McpMeta.SERVER_INFO);
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
	 * Whether a refusal of the discovery (which carried the client's {@code clientInfo} and {@code capabilities}, so
	 * its size and content were the client's: a 413 for a 5 MiB {@code clientInfo}, review 46e N3) shows the server was
	 * redeployed as a session-era one: only when the relay's own {@code server/discover} ({@link ModernProbe}, no
	 * content of the client's) is refused as a session-era server does too; then the learnt versions are forgotten
	 * ({@link ServerVersions#forget}, within its bound). The client waits for that at most half its deadline from when
	 * the discovery was sent ({@link SharedVerdict#ask}), then is answered as without it (review 46k, K1). Never fails.
	 */
	private Mono<Boolean> redeployed(Sent sent, String why) {
		return probe.ask(sent.request(), versions, sent.nanos())
			.map(verdict -> verdict == ModernProbe.Verdict.SESSION_ERA && versions.forget(why));
	}

	/** The discovery's JSON-RPC error, handed to the client under its {@code initialize}'s id. */
	private Mono<Void> refuse(JsonNode id, ObjectNode answer, Function<UpstreamResponse, Mono<Void>> handler) {
		if (answer != null && answer.get("error") instanceof ObjectNode error) {
			ObjectNode refusal = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0");
			refusal.set("id", id);
			refusal.set("error", error);
			return handler.apply(LocalUpstreamResponse.json(new HttpHeaders(), bytes(refusal)));
		}
		return Mono.error(discoverFailed("answered the relay's server/discover with no result"));
	}

	private UpstreamTransportException discoverFailed(String what) {
		return new UpstreamTransportException(Kind.UPSTREAM_FAILED, "bridge_discover_failed",
				"MCP server '" + serverId + "' " + what + ".");
	}

	private static byte[] bytes(JsonNode node) {
		return node.toString().getBytes(StandardCharsets.UTF_8);
	}

}
