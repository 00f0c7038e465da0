package dev.mcprelay.bridge;

import java.time.Duration;
import java.util.function.Function;

import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.jsonrpc.JsonWord;
import dev.mcprelay.jsonrpc.ProtocolVersions;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.security.RelayMac;
import dev.mcprelay.session.SessionStore;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Mono;

/**
 * The transport of one Streamable HTTP server, between the relay and the relay's own Streamable HTTP transport
 * ({@code server}): it bridges a client whose generation the server does not speak, and relays every other request
 * untouched. It learns which protocol versions the server speaks ({@link ServerVersions}) from the answers to the
 * relay's own requests only ({@link SessionEraProbe}, {@link ModernProbe}: built from the server's configuration,
 * {@link ServerCredentials}), never from an answer to a client's request, which went where the client's headers sent
 * it (review 46i, F1: behind a gateway that routes by a client's header, one caller made the relay learn a wrong
 * generation for every caller). A session-era client's {@code initialize} refused (a 4xx JSON answer) naming versions
 * in {@code error.data.supported} is read whole (within the server's {@code max-buffered-body}) and makes the relay ask
 * its own {@code initialize}; when what that teaches says the client needs the bridge, the {@code initialize} is
 * answered through it, else the refusal is handed on exactly as it came; any other answer is not looked into.
 *
 * <p>What was learnt is revised when the server answers as one of the other generation (it was redeployed), within the
 * bound {@link ServerVersions} keeps: a server learnt as 2026-only that refuses the bridge's {@code server/discover} as
 * a session-era server does is relayed to as the client speaks (and a session the bridge gave a 2025 client ends at its
 * next request so refused: {@link RedeployedServers}); a server learnt as 2026-only that refuses a 2026 client's request
 * as a session-era server does is asked the relay's own {@code server/discover} and {@code initialize}
 * ({@link ServerEraChecks#sessionEra}); a server learnt as 2025-only that refuses a bridged request naming the versions
 * it supports is asked the relay's own {@code initialize} ({@link ServerEraChecks#recheck}), whose refusal teaches
 * them, and the request is then relayed as the client sent it.
 *
 * <p>A 2025 client of a server that speaks only 2026-07-28 ({@link ServerVersions#bridges}) is bridged from its
 * {@code initialize} on, and every request of the session the bridge gives it (an id of {@link BridgeSessions}) goes
 * through {@link SessionBridge}: POST, GET and DELETE; a result that asks the client for input is carried through its
 * rounds ({@link InputRounds}); a session relayed to the server unbridged whose version the server no longer speaks
 * (it was redeployed) ends ({@link RetiredSessionEra}), and the client's next {@code initialize} is bridged. A
 * 2026-07-28 client of a server that speaks only the session era is bridged per
 * request ({@link PerRequestBridge}), in an upstream session the relay keeps for it.
 *
 * <p>Runs after every decision of the relay (it is the upstream transport): what it sends and answers is what
 * interceptors, policies and metrics already saw, in the client's version.
 */
public final class VersionBridge implements UpstreamTransport {

	private final UpstreamTransport server;

	private final String serverId;

	private final ServerVersions versions;

	private final long maxBodyBytes;

	private final SessionBridge sessions;

	private final PerRequestBridge legacy;

	private final RetiredSessionEra relayed;

	/** The relay's own {@code initialize} of the server, one for every use of it (one exchange per interval). */
	private final SessionEraProbe sessionEraProbe;

	/** The relay's own {@code server/discover} of the server. */
	private final ModernProbe modernProbe;

	/** What the relay's own requests teach for 2026 clients (direction 2): asked when their requests are refused. */
	private final ServerEraChecks checks;

	/**
	 * @param server the relay's Streamable HTTP transport, which every exchange with the server goes through
	 * @param versions what the relay knows of the server's versions
	 * @param maxBodyBytes the server's {@code max-buffered-body}: the largest answer the bridge reads whole
	 * @param store where the sessions of bridged 2025 clients are kept
	 * @param flights what the relay's bridged sessions have in flight on this replica (one for every bridge the relay
	 * makes, so that the bridge a reload makes for the server reaches what this one started)
	 * @param inputRoundTimeout how long a round of input waits for a bridged client's answers (the server's
	 * {@code timeouts.streaming-idle}; {@link InputRounds})
	 * @param mac the relay's key ({@code sessions.secret}), which signs a held call's {@code requestState}
	 * @param openTimeout how long opening an upstream session for a 2026 client waits (the server's
	 * {@code timeouts.non-streaming}; {@link UpstreamSessions})
	 * @param unrelayed what hears each list change of the server's that the bridge relays to no client (the relay's
	 * one listener of list changes)
	 * @param credentials what the relay's own requests to learn about the server carry ({@link OwnRequests}): the
	 * server's configured headers and credentials, nothing of a client's
	 */
	public VersionBridge(UpstreamTransport server, String serverId, ServerVersions versions, long maxBodyBytes,
			SessionStore store, BridgeFlights flights, Duration inputRoundTimeout, RelayMac mac, Duration openTimeout,
			UnrelayedListChanges unrelayed, ServerCredentials credentials) {
		this(server, serverId, versions, maxBodyBytes, store, flights, inputRoundTimeout, mac, openTimeout, unrelayed,
				credentials, System::nanoTime);
	}

	/** @param nanoClock the clock of the relay's own requests' intervals ({@link SharedVerdict}): tests set it */
	VersionBridge(UpstreamTransport server, String serverId, ServerVersions versions, long maxBodyBytes,
			SessionStore store, BridgeFlights flights, Duration inputRoundTimeout, RelayMac mac, Duration openTimeout,
			UnrelayedListChanges unrelayed, ServerCredentials credentials, java.util.function.LongSupplier nanoClock) {
		this.server = server;
		this.serverId = serverId;
		this.versions = versions;
		this.maxBodyBytes = maxBodyBytes;
		OwnRequests own = new OwnRequests(credentials, serverId);
		this.modernProbe = new ModernProbe(server, own, serverId, maxBodyBytes, openTimeout, nanoClock);
		this.sessionEraProbe = new SessionEraProbe(server, own, serverId, versions, maxBodyBytes, openTimeout,
				nanoClock);
		this.checks = new ServerEraChecks(modernProbe, sessionEraProbe, versions);
		this.sessions = new SessionBridge(server, serverId, versions, new BridgeSessions(store, serverId, flights),
				maxBodyBytes, inputRoundTimeout, modernProbe);
		this.legacy = new PerRequestBridge(server, serverId, maxBodyBytes,
				new UpstreamSessions(server, serverId, versions, store, maxBodyBytes, openTimeout, checks), versions,
				inputRoundTimeout, mac, flights.of(serverId), unrelayed, checks);
		this.relayed = new RetiredSessionEra(server, serverId, sessionEraProbe, maxBodyBytes);
	}

	/**
	 * A bridge whose unrelayed list changes nothing hears ({@link UnrelayedListChanges#NONE}) and whose own requests
	 * carry no credentials ({@link ServerCredentials#NONE}): for tests.
	 */
	public VersionBridge(UpstreamTransport server, String serverId, ServerVersions versions, long maxBodyBytes,
			SessionStore store, BridgeFlights flights, Duration inputRoundTimeout, RelayMac mac, Duration openTimeout) {
		this(server, serverId, versions, maxBodyBytes, store, flights, inputRoundTimeout, mac, openTimeout,
				UnrelayedListChanges.NONE, ServerCredentials.NONE);
	}

	/**
	 * How many answers of bridged clients to the server's requests for input this replica awaits now: none once every
	 * round ended (answered, timed out, cancelled).
	 */
	public int awaitedInputAnswers() {
		return sessions.awaitedAnswers();
	}

	/** How many calls of 2026 clients wait for the client's retry with its input on this replica ({@link HeldCalls}). */
	public int heldCalls() {
		return legacy.heldCalls();
	}

	/** Whether {@code sessionId} names a session the bridge gave a 2025 client (whose state it keeps itself). */
	public static boolean isBridgedSession(String sessionId) {
		return BridgeSessions.isBridged(sessionId);
	}

	/** What the relay knows of the server's versions. */
	public ServerVersions versions() {
		return versions;
	}

	@Override
	public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		if (BridgeSessions.isBridged(request.sessionId())) {
			return sessions.send(request, handler);
		}
		String perRequest = perRequestVersion(request);
		if (perRequest != null) {
			return sendPerRequest(request, perRequest, handler);
		}
		String clientVersion = sessionInitializeVersion(request);
		if (clientVersion == null) {
			return relayed.send(request, handler);
		}
		if (versions.bridges(clientVersion)) {
			// should the server refuse the bridge's discovery as a session-era server does (it was redeployed), what
			// was learnt is forgotten and the initialize is relayed as it came
			return sessions.open(request, handler,
					() -> relayInitialize(withoutOnWritten(request), clientVersion, handler, false));
		}
		return relayInitialize(request, clientVersion, handler, true);
	}

	/**
	 * A session-era client's {@code initialize}, relayed as it came; a refusal (a 4xx JSON answer) naming versions is
	 * read, and makes the relay ask its own {@code initialize} ({@link #probedOnRefusal}): when what that teaches says
	 * the client needs the bridge, the {@code initialize} is answered through it ({@code mayBridge}: not when the bridge
	 * just handed it here), else the refusal is handed on as it came.
	 */
	private Mono<Void> relayInitialize(UpstreamRequest request, String clientVersion,
			Function<UpstreamResponse, Mono<Void>> handler, boolean mayBridge) {
		return Mono.defer(() -> {
			long sent = System.nanoTime();
			return server.send(request, response -> probedOnRefusal(response, request, sent).flatMap(refused -> {
				if (!mayBridge || !versions.bridges(clientVersion)) {
					return handler.apply(refused);
				}
				// the relay's own initialize taught that this client needs the bridge: its initialize is answered
				// through it
				return sessions.open(withoutOnWritten(request), handler, null);
			}));
		});
	}

	private static UpstreamRequest withoutOnWritten(UpstreamRequest request) {
		return new UpstreamRequest(request.serverId(), request.method(), request.uri(), request.headers(),
				request.body(), request.callerId(), null);
	}

	@Override
	public Mono<Void> receive(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return BridgeSessions.isBridged(request.sessionId()) ? sessions.listen(request, handler)
				: server.receive(request, handler);
	}

	@Override
	public Mono<Void> close(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return BridgeSessions.isBridged(request.sessionId()) ? sessions.end(request, handler)
				: server.close(request, handler);
	}

	/**
	 * A 2026-07-28 client's request: bridged when the server speaks only the session era; else relayed as it is. While
	 * the server's versions are unknown, or known but contradicted now ({@link ServerVersions#mayProbe}: learnt, and the
	 * bound of revisions allows an exchange to prove them wrong), a refusal (4xx) that is a session-era server's
	 * ({@link Refusals#bySessionEraServer}) makes the relay ask its own requests ({@link ServerEraChecks#sessionEra}):
	 * when they teach that the server speaks only the session era, the request goes through the bridge; else the
	 * refusal is handed on as it came. A refusal that comes back after another request taught that the client needs the
	 * bridge (the first clients of a server arrive together) goes through the bridge too (review 46j, N4). A request
	 * whose media types the client got wrong ({@link ClientShapedRequests}) probes nothing: its refusal is the client's.
	 * A refusal of the new generation's, or the server's own JSON-RPC answer to the request ({@link
	 * Refusals#understood}: a server that understood the request is never probed, since one that speaks both
	 * generations would be taken for one of the session era), is handed on and teaches nothing: it came where the
	 * client's headers sent the request (review 46j, N1).
	 */
	private Mono<Void> sendPerRequest(UpstreamRequest request, String clientVersion,
			Function<UpstreamResponse, Mono<Void>> handler) {
		if (versions.bridges(clientVersion)) {
			return legacy.send(request, clientVersion, handler);
		}
		return Mono.defer(() -> {
			long sent = System.nanoTime();
			return server.send(request, response -> refusedPerRequest(request, clientVersion, sent, response, handler));
		});
	}

	private Mono<Void> refusedPerRequest(UpstreamRequest request, String clientVersion, long sent,
			UpstreamResponse response, Function<UpstreamResponse, Mono<Void>> handler) {
		if (!response.statusCode().is4xxClientError()) {
			return handler.apply(response);
		}
		return BridgeBodies.read(response.body(), maxBodyBytes, serverId).flatMap(body -> {
			UpstreamResponse refused = LocalUpstreamResponse.replay(response.statusCode(), response.headers(),
					body);
			if (Refusals.ofNewGeneration(body) || Refusals.understood(request.body(), body)
					|| !Refusals.bySessionEraServer(response.statusCode(), body)
					|| !ClientShapedRequests.wellShaped(request)) {
				return handler.apply(refused);
			}
			if (versions.bridges(clientVersion)) {
				// another request taught the versions while this one was refused: the bridge answers it
				return legacy.send(request, clientVersion, handler);
			}
			if (!versions.known().isEmpty() && !versions.mayProbe()) {
				return handler.apply(refused);
			}
			return checks.sessionEra(request, sent).then(Mono.defer(() -> versions.bridges(clientVersion)
					? legacy.send(request, clientVersion, handler) : handler.apply(refused)));
		});
	}

	/**
	 * The version a 2026-07-28 client's request names ({@code MCP-Protocol-Version}, of the per-request era; no
	 * session); else {@code null}.
	 */
	static String perRequestVersion(UpstreamRequest request) {
		String version = request.headers().getFirst("MCP-Protocol-Version");
		return request.sessionId() == null && request.body() != null && ProtocolVersions.isPerRequest(version)
				? version : null;
	}

	/**
	 * {@code response} (to a client's {@code initialize}, sent at {@code sent}) as it is to be handed on; a refusal with
	 * a JSON body is read first, and when it names versions ({@code error.data.supported}) and {@code request} named
	 * only versions the relay knows ({@link NamedVersions}), the relay asks its own {@code initialize}
	 * ({@link SessionEraProbe}), which alone teaches: the refusal came from wherever the client's headers sent its
	 * request (review 46i, F1). The client waits for that verdict until half its deadline has passed, then goes on
	 * without it. The body handed on is the one that came, byte for byte, with the status and headers that came.
	 */
	private Mono<UpstreamResponse> probedOnRefusal(UpstreamResponse response, UpstreamRequest request, long sent) {
		if (!response.statusCode().is4xxClientError() || !isJson(response.contentType())) {
			return Mono.just(response);
		}
		return BridgeBodies.read(response.body(), maxBodyBytes, serverId).flatMap(body -> {
			UpstreamResponse refused = LocalUpstreamResponse.replay(response.statusCode(), response.headers(), body);
			if (Refusals.supportedVersions(body).isEmpty() || !NamedVersions.allKnown(request)) {
				return Mono.just(refused);
			}
			return sessionEraProbe.ask(request, sent).thenReturn(refused);
		});
	}

	/**
	 * The version a session-era client asks for in its {@code initialize}, when the request is one (a single request,
	 * no session yet); else {@code null}. Requests with a session, and bodies that cannot hold the method in any JSON
	 * spelling ({@link JsonWord}), are not parsed.
	 */
	static String sessionInitializeVersion(UpstreamRequest request) {
		byte[] body = request.body();
		if (body == null || request.sessionId() != null || !INITIALIZE.mayBeIn(body)) {
			return null;
		}
		JsonRpcPayload payload;
		try {
			payload = JsonRpcParser.parse(body);
		}
		catch (JsonRpcParseException ex) {
			return null;
		}
		if (payload.batch() || payload.messages().size() != 1) {
			return null;
		}
		JsonRpcMessage message = payload.messages().get(0);
		if (!message.isRequest() || !"initialize".equals(message.method())) {
			return null;
		}
		JsonNode version = message.node().path("params").path("protocolVersion");
		return version.isTextual() && !ProtocolVersions.isPerRequest(version.asText()) ? version.asText() : null;
	}

	/** The method looked for before a body is parsed: {@code "initialize"}, in any JSON spelling ({@link JsonWord}). */
	private static final JsonWord INITIALIZE = JsonWord.of("\"initialize\"");

	private static boolean isJson(MediaType type) {
		return type != null && MediaType.APPLICATION_JSON.isCompatibleWith(type);
	}

}
