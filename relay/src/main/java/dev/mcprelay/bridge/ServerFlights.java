package dev.mcprelay.bridge;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import reactor.core.publisher.Sinks;

/**
 * What one server's bridged sessions have in flight on this replica ({@link SessionBridge}): their GET streams, their
 * requests, and the answers their rounds of input wait for; and the calls of 2026-07-28 clients held for their retry
 * ({@link PerRequestBridge}). Kept per server by the replica's {@link BridgeFlights},
 * not per bridge: a reload that changes a server's settings (its headers, timeouts, limits) makes it a new bridge
 * while its sessions go on, and the new bridge must reach what the old one started: the client's answer to a round
 * asked before the reload, its {@code notifications/cancelled} for a request sent before, its DELETE of a session
 * whose GET stream opened before.
 */
final class ServerFlights {

	/** The server these are of. */
	final String serverId;

	/** The GET streams, by session: a DELETE ends them; while one is open its session is kept in use. */
	final Map<String, Sinks.Empty<Void>> streams = new ConcurrentHashMap<>();

	/** The requests in flight, by session and id (the session's id, a space, the request's id): cancelling one ends it. */
	final Map<String, Sinks.Empty<Void>> calls = new ConcurrentHashMap<>();

	/** The answers the rounds of input wait for. */
	final ClientAnswers answers = new ClientAnswers();

	/** The calls of 2026-07-28 clients held for their retry (direction 2, {@link HeldCalls}), by call. */
	final Map<String, HeldCalls.Held> held = new ConcurrentHashMap<>();

	/** The {@code notifications/cancelled} of direction 2 in flight to the server ({@link BridgedCancellations}). */
	final java.util.concurrent.atomic.AtomicInteger cancelling = new java.util.concurrent.atomic.AtomicInteger();

	ServerFlights(String serverId) {
		this.serverId = serverId;
	}

	/**
	 * The sessions with a GET stream open or a request in flight on this replica, and the upstream sessions of the
	 * calls held for their client's retry (direction 2: their store entries, by the id {@link UpstreamSessions} keeps
	 * them under, so that a retry within {@code streaming-idle} finds the client's session as it left it).
	 */
	java.util.Set<String> sessionsInUse() {
		java.util.Set<String> inUse = new java.util.HashSet<>(streams.keySet());
		calls.keySet().forEach(key -> inUse.add(key.substring(0, Math.max(key.indexOf(' '), 0))));
		held.values().forEach(call -> inUse.add(UpstreamSessions.storeId(call.owner)));
		inUse.remove("");
		return inUse;
	}

	/** Ends the GET stream of {@code sessionId} on this replica, if one is open. */
	void endStream(String sessionId) {
		Sinks.Empty<Void> stream = streams.remove(sessionId);
		if (stream != null) {
			stream.tryEmitEmpty();
		}
	}

}
