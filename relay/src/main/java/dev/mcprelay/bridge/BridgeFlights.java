package dev.mcprelay.bridge;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

import dev.mcprelay.session.SessionStore;
import reactor.core.publisher.Sinks;

/**
 * What a server's bridged sessions have in flight on this replica ({@link SessionBridge}): their GET streams, their
 * requests, and the answers their rounds of input wait for. It is kept per server (by its id, in the relay's session
 * store), not per bridge: a reload that changes a server's settings (its headers, timeouts, limits) makes it a new
 * bridge while its sessions go on, and the new bridge must reach what the old one started: the client's answer to a
 * round asked before the reload, its {@code notifications/cancelled} for a request sent before, its DELETE of a
 * session whose GET stream opened before. A server a reload removes takes no more requests; what it had in flight ends
 * at its own bounds. The store is the relay's (one per application), so two relays in one JVM (tests) share nothing.
 */
final class BridgeFlights {

	private static final Map<SessionStore, Map<String, BridgeFlights>> KEPT = Collections
		.synchronizedMap(new WeakHashMap<>());

	/** The GET streams, by session: a DELETE ends them. */
	final Map<String, Sinks.Empty<Void>> streams = new ConcurrentHashMap<>();

	/** The requests in flight, by session and id: cancelling one ends it. */
	final Map<String, Sinks.Empty<Void>> calls = new ConcurrentHashMap<>();

	/** The answers the rounds of input wait for. */
	final ClientAnswers answers = new ClientAnswers();

	/** The calls of 2026-07-28 clients held for their retry (direction 2, {@link HeldCalls}), by call. */
	final Map<String, HeldCalls.Held> held = new ConcurrentHashMap<>();

	private BridgeFlights() {
	}

	/** What server {@code serverId}'s bridged sessions kept in {@code store} have in flight on this replica. */
	static BridgeFlights of(SessionStore store, String serverId) {
		return KEPT.computeIfAbsent(store, any -> new ConcurrentHashMap<>())
			.computeIfAbsent(serverId, any -> new BridgeFlights());
	}

}
