package dev.mcprelay.bridge;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.ProtocolVersions;
import dev.mcprelay.session.SessionKey;
import dev.mcprelay.session.SessionStore;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import dev.mcprelay.transport.UpstreamTransportException;
import dev.mcprelay.transport.UpstreamTransportException.Kind;
import reactor.core.publisher.Mono;

/**
 * The sessions the relay keeps with a 2025-only server for 2026-07-28 clients (direction 2 of the bridge): one per
 * caller and envelope ({@link ModernClient}), opened on first use with the relay's own {@code initialize} (the client's
 * info and capabilities, the newest session-era version the server is known to speak) and
 * {@code notifications/initialized}, and opened again when the server answers a request in it with 404 (the session
 * ended there). Never shared between callers.
 *
 * <p>Kept in the relay's session store (DESIGN section 7: memory, or Redis shared by replicas), under the server's id
 * and {@link #PREFIX} with a SHA-256 of the caller and envelope, opened by the caller ({@link UpstreamSession}): with
 * Redis every replica sends a caller's requests in the one session, as a 2025 server expects of one client; entries
 * expire with the store's idle timeout (the server's session is then left to the server's own expiry). Opening is
 * shared on this replica by concurrent first requests of one client, and bounded by the server's
 * {@code timeouts.non-streaming}: one that fails or takes longer is forgotten, and the client's next request opens
 * anew. Two replicas opening at once each open one, and the later one is kept.
 *
 * <p>What the server answers the {@code initialize} teaches nothing of the server's versions: it carries the client's
 * headers, which may send it to another server behind a gateway (review 46j, N1). A refusal (a 4xx JSON answer) that
 * names versions in {@code error.data.supported} makes the relay ask its own {@code initialize}
 * ({@link ServerEraChecks#recheck}, rate-limited), whose answer alone teaches; the opening fails
 * ({@code bridge_initialize_failed}) either way.
 */
final class UpstreamSessions {

	/** How the store's key of an upstream session begins. */
	static final String PREFIX = "mcp-upstream-";

	/** Under which name the store keeps the {@link UpstreamSession}. */
	static final String STATE = "version-bridge-upstream";

	private final UpstreamTransport server;

	private final String serverId;

	private final ServerVersions versions;

	private final SessionStore store;

	private final long maxBytes;

	/** How long an opening waits for the server (its {@code timeouts.non-streaming}). */
	private final java.time.Duration openTimeout;

	/** The openings under way on this replica, by store key: concurrent first requests share one. */
	private final Map<String, Mono<UpstreamSession>> opening = new ConcurrentHashMap<>();

	/**
	 * The re-openings asked, by store key and the session they replace, the last {@value #MAX_REOPENINGS}: every
	 * exchange that finds one session forgotten shares one; guarded by itself. One under way is held as it runs; one
	 * done, as the session it opened only (nothing of the request that asked it).
	 */
	private final Map<String, Mono<UpstreamSession>> reopenings = new java.util.LinkedHashMap<>(16, 0.75f, false) {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, Mono<UpstreamSession>> eldest) {
			return size() > MAX_REOPENINGS;
		}

	};

	/** The most re-openings remembered ({@link #reopen(UpstreamRequest, ModernClient, UpstreamSession)}). */
	static final int MAX_REOPENINGS = 1024;

	/** What the relay's own requests tell of the server, asked when an {@code initialize} is refused naming versions. */
	private final ServerEraChecks checks;

	/** Sessions whose refused openings ask nothing of the server ({@link ServerEraChecks#NONE}): for tests. */
	UpstreamSessions(UpstreamTransport server, String serverId, ServerVersions versions, SessionStore store,
			long maxBytes, java.time.Duration openTimeout) {
		this(server, serverId, versions, store, maxBytes, openTimeout, ServerEraChecks.NONE);
	}

	/**
	 * @param openTimeout how long an opening waits for the server: its {@code timeouts.non-streaming}
	 * @param checks the relay's own requests, asked when an opening is refused naming versions
	 */
	UpstreamSessions(UpstreamTransport server, String serverId, ServerVersions versions, SessionStore store,
			long maxBytes, java.time.Duration openTimeout, ServerEraChecks checks) {
		this.checks = checks;
		this.openTimeout = openTimeout;
		this.server = server;
		this.serverId = serverId;
		this.versions = versions;
		this.store = store;
		this.maxBytes = maxBytes;
	}

	/** How long an opening, or another exchange of the relay's own with the server, waits for it. */
	java.time.Duration openTimeout() {
		return openTimeout;
	}

	/**
	 * {@code client}'s session: the one the store holds, else a new one. A session found teaches nothing of the
	 * server's versions: it was opened with the client's headers.
	 */
	Mono<UpstreamSession> find(UpstreamRequest relayed, ModernClient client) {
		return kept(client).switchIfEmpty(Mono.defer(() -> open(relayed, client)));
	}

	/** A new session for {@code client}, in place of one the server ended (it answered 404 in it). */
	Mono<UpstreamSession> reopen(UpstreamRequest relayed, ModernClient client) {
		return open(relayed, client);
	}

	/**
	 * A new session for {@code client} in place of {@code replaced}, which the server forgot, unless the store already
	 * holds another (a request or listen of the client's that found {@code replaced} forgotten first opened it): that
	 * one, so that the client's exchanges that find one session forgotten open one session, not one each (review 46h,
	 * N4: concurrent listens after a server's restart each opened one, and all but the stored one were left at the
	 * server). Openings under way are shared as {@link #find}'s are.
	 */
	Mono<UpstreamSession> reopen(UpstreamRequest relayed, ModernClient client, UpstreamSession replaced) {
		Mono<UpstreamSession> reopening = kept(client)
			.filter(session -> session.sessionId() != null && !session.sessionId().equals(replaced.sessionId()))
			.switchIfEmpty(Mono.defer(() -> open(relayed, client)));
		if (replaced.sessionId() == null) {
			return reopening;
		}
		// one re-opening per replaced session, whenever its exchanges ask (not only while it is under way): a failed
		// one is forgotten, so that the next asks anew
		String name = keyOf(client).id() + '\n' + replaced.sessionId();
		synchronized (reopenings) {
			Mono<UpstreamSession> shared = reopenings.get(name);
			if (shared == null) {
				AtomicReference<Mono<UpstreamSession>> self = new AtomicReference<>();
				// once opened, only the session is remembered: the cached re-opening holds the request that asked it
				// (its body, up to max-buffered-body, and the caller's credential among its headers: review 46l N1)
				shared = reopening.doOnNext(opened -> {
					synchronized (reopenings) {
						reopenings.replace(name, self.get(), Mono.just(opened));
					}
				}).doOnError(failed -> {
					synchronized (reopenings) {
						reopenings.remove(name, self.get());
					}
				}).cache();
				self.set(shared);
				reopenings.put(name, shared);
			}
			return shared;
		}
	}

	/** The session the store holds for {@code client}, if any. */
	private Mono<UpstreamSession> kept(ModernClient client) {
		return store.find(keyOf(client))
			.filter(state -> Objects.equals(state.callerId(), client.callerId()))
			.mapNotNull(state -> {
				String kept = state.members().get(STATE);
				return kept == null ? null : UpstreamSession.fromJson(kept);
			});
	}

	private Mono<UpstreamSession> open(UpstreamRequest relayed, ModernClient client) {
		SessionKey key = keyOf(client);
		String name = key.id();
		return opening.computeIfAbsent(name, absent -> {
			AtomicReference<Mono<UpstreamSession>> self = new AtomicReference<>();
			Mono<UpstreamSession> opened = initialize(relayed, client)
				.timeout(openTimeout, Mono.error(() -> failed("did not answer the relay's initialize within "
						+ openTimeout.toMillis() + " ms")))
				.flatMap(session -> store.open(key, client.callerId())
					.then(store.join(key, STATE, session.toJson()))
					.thenReturn(session))
				// forgotten as soon as it opened or failed, before a request reads it: one that finds this session
				// ended (404) opens anew, as does the next request after a failure
				.doOnEach(signal -> opening.remove(name, self.get()))
				.doOnCancel(() -> opening.remove(name, self.get()))
				.cache();
			self.set(opened);
			return opened;
		});
	}

	private Mono<UpstreamSession> initialize(UpstreamRequest relayed, ModernClient client) {
		return Mono.defer(() -> {
			AtomicReference<UpstreamSession> opened = new AtomicReference<>();
			return server.send(SessionEraRequests.initialize(relayed, client, askedVersion()),
					response -> answered(relayed, response).doOnNext(opened::set).then())
				.then(Mono.fromSupplier(opened::get))
				.switchIfEmpty(Mono.error(() -> failed("answered the relay's initialize with no result")))
				.flatMap(session -> server.send(SessionEraRequests.initialized(relayed, session),
						UpstreamResponse::releaseBody).thenReturn(session));
		});
	}

	/** The session an {@code initialize}'s answer opened; nothing learnt from it (it carried the client's headers). */
	private Mono<UpstreamSession> answered(UpstreamRequest relayed, UpstreamResponse response) {
		MediaType type = response.contentType();
		if (!response.statusCode().is2xxSuccessful()) {
			int status = response.statusCode().value();
			if (!response.statusCode().is4xxClientError() || type == null
					|| !MediaType.APPLICATION_JSON.isCompatibleWith(type)) {
				return response.releaseBody().then(Mono.error(failed("refused the relay's initialize with HTTP "
						+ status)));
			}
			return BridgeBodies.read(response.body(), maxBytes, serverId)
				.flatMap(body -> (Refusals.supportedVersions(body).isEmpty() ? Mono.<Void>empty()
						: checks.recheck(relayed))
					.then(Mono.error(failed("refused the relay's initialize with HTTP " + status))));
		}
		String sessionId = response.headers().getFirst("Mcp-Session-Id");
		return firstResponse(response).flatMap(answer -> {
			JsonNode result = answer.get("result");
			if (result == null || !result.path("protocolVersion").isTextual()) {
				// the relay's own words: the server's text reaches no log line and no client
				return Mono.error(failed(answer.path("error").isObject() ? "answered the relay's initialize with a "
						+ "JSON-RPC error (code " + answer.path("error").path("code").asInt() + ")"
						: "answered the relay's initialize with no result"));
			}
			String version = result.path("protocolVersion").asText();
			return Mono.just(new UpstreamSession(sessionId, version, result.path("capabilities"),
					result.path("serverInfo"), result.path("instructions").asText(null)));
		});
	}

	/** The first JSON-RPC response of an answer, JSON or an event stream (read no further); empty when none came. */
	private Mono<ObjectNode> firstResponse(UpstreamResponse response) {
		MediaType type = response.contentType();
		if (type != null && MediaType.APPLICATION_JSON.isCompatibleWith(type)) {
			return BridgeBodies.read(response.body(), maxBytes, serverId).mapNotNull(BridgedAnswers::parse);
		}
		if (type != null && MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)) {
			return BridgedAnswers.firstAnswer(response, maxBytes).mapNotNull(BridgedAnswers::parse);
		}
		return response.releaseBody().then(Mono.empty());
	}

	/** The version the relay's {@code initialize} asks for: the newest session-era one the server is known to speak. */
	private String askedVersion() {
		return versions.known().stream().filter(version -> !ProtocolVersions.isPerRequest(version))
			.max(String::compareTo).orElse(ProtocolVersions.LATEST_SESSION);
	}

	private SessionKey keyOf(ModernClient client) {
		return new SessionKey(serverId, storeId(client.key()));
	}

	/** The id the session of the client {@code clientKey} ({@link ModernClient#key}) is kept under in the store. */
	static String storeId(String clientKey) {
		return PREFIX + clientKey;
	}

	private UpstreamTransportException failed(String what) {
		return new UpstreamTransportException(Kind.UPSTREAM_FAILED, "bridge_initialize_failed", "MCP server '"
				+ serverId + "' speaks only session-era MCP, and " + what + ".");
	}

}
