package dev.mcprelay.bridge;

import java.util.Objects;

import dev.mcprelay.session.SessionIds;
import dev.mcprelay.session.SessionKey;
import dev.mcprelay.session.SessionStore;
import dev.mcprelay.transport.UpstreamTransportException;
import dev.mcprelay.transport.UpstreamTransportException.Kind;
import reactor.core.publisher.Mono;

/**
 * The relay sessions the bridge gives 2025 clients of a 2026-only server (DESIGN section 7): an id the bridge mints
 * ({@link #PREFIX} and 256 random bits), recorded in the relay's {@link SessionStore} (memory, or Redis shared by
 * replicas) under the server's id, opened by the caller and usable by that caller alone, holding the client's
 * {@link BridgedClient} (kept as the store's state for the member {@link #STATE}). The relay binds the id to the caller
 * toward the client as it binds every session id; the server never sees it. A session the store does not hold (never
 * opened, ended, expired, evicted) or that another caller opened is unknown: 404, and the client initializes again.
 */
final class BridgeSessions {

	/** How the id of a bridged session begins. */
	static final String PREFIX = "mcp-bridge-";

	/** Under which name the store keeps the session's {@link BridgedClient}. */
	static final String STATE = "version-bridge";

	private final SessionStore store;

	private final String serverId;

	private final ServerFlights flights;

	/** @param flights what the relay's bridged sessions have in flight on this replica, of every server */
	BridgeSessions(SessionStore store, String serverId, BridgeFlights flights) {
		this.store = store;
		this.serverId = serverId;
		this.flights = flights.of(serverId);
	}

	/** What the server's bridged sessions have in flight on this replica, whichever bridge started it. */
	ServerFlights flights() {
		return flights;
	}

	/** Whether {@code sessionId} names a bridged session (of any server). */
	static boolean isBridged(String sessionId) {
		return sessionId != null && sessionId.startsWith(PREFIX);
	}

	/** Opens a session for {@code callerId}'s client; the id it is known by. */
	Mono<String> open(String callerId, BridgedClient client) {
		String id = PREFIX + SessionIds.mint();
		SessionKey key = new SessionKey(serverId, id);
		return store.open(key, callerId).then(store.join(key, STATE, client.toJson())).thenReturn(id);
	}

	/** The session's client, when {@code callerId} opened it and the store holds it; else fails as an unknown session. */
	Mono<BridgedClient> require(String sessionId, String callerId) {
		return store.find(new SessionKey(serverId, sessionId))
			.filter(state -> Objects.equals(state.callerId(), callerId))
			.mapNotNull(state -> {
				String kept = state.members().get(STATE);
				return kept == null ? null : BridgedClient.fromJson(kept);
			})
			.switchIfEmpty(Mono.error(() -> new UpstreamTransportException(Kind.UNKNOWN_SESSION, "session_not_found",
					"No MCP session with that id is open for server '" + serverId + "' (it ended or expired); "
							+ "initialize a new one.")));
	}

	/** Ends the session {@code callerId} opened (after {@link #require} found it). */
	Mono<Void> end(String sessionId, String callerId) {
		return store.end(new SessionKey(serverId, sessionId), callerId);
	}

}
