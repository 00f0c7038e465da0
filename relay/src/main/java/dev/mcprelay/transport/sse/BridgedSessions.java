package dev.mcprelay.transport.sse;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.mcprelay.session.CallerQuota;
import dev.mcprelay.session.SessionIds;
import dev.mcprelay.transport.UpstreamTransportException.Kind;
import dev.mcprelay.transport.UpstreamTransportException;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * The bridged sessions of one replica (DESIGN section 7): each under a relay session id of 256 random bits, minted
 * for the client, bound to the caller that opened it, capped in number ({@code sessions.max-bridged-sessions}, and
 * per caller {@code sessions.max-per-caller}: past it the caller's own oldest session ends) and
 * ended when idle ({@code sessions.idle-timeout}: no request, no waiting POST, no GET stream attached). A session
 * lives where its upstream stream is: another replica does not know it and answers 404.
 */
final class BridgedSessions implements AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(BridgedSessions.class);

	private final Map<String, BridgedSession> sessions = new ConcurrentHashMap<>();

	private final String serverId;

	private final int max;

	private final Duration idleTimeout;

	private final Disposable sweeper;

	private final CallerQuota<String> quota;

	private final Runnable onEvicted;

	/** The ids of the sessions the bridge this one replaced ended at a reload ({@link #endedBefore}). */
	private volatile Set<String> endedBefore = Set.of();

	BridgedSessions(String serverId, int max, Duration idleTimeout) {
		this(serverId, max, max, idleTimeout, () -> {
		});
	}

	/**
	 * @param maxPerCaller how many one caller may hold; past it the caller's oldest ends
	 * @param onEvicted told of each session ended that way
	 */
	BridgedSessions(String serverId, int max, int maxPerCaller, Duration idleTimeout, Runnable onEvicted) {
		this.serverId = serverId;
		this.max = max;
		this.quota = new CallerQuota<>(maxPerCaller);
		this.onEvicted = onEvicted;
		this.idleTimeout = idleTimeout;
		Duration every = idleTimeout.dividedBy(4).compareTo(Duration.ofSeconds(30)) < 0
				? max(idleTimeout.dividedBy(4), Duration.ofMillis(100)) : Duration.ofSeconds(30);
		this.sweeper = Flux.interval(every, every, Schedulers.parallel()).subscribe(tick -> endIdle());
		SessionIds.mint(); // seeds the generator now, off the event loops
	}

	/** A new session's id ({@link SessionIds}). */
	static String mintId() {
		return SessionIds.mint();
	}

	/**
	 * Keeps a new session, unless as many are open as may be.
	 *
	 * @throws UpstreamTransportException when the cap is reached (503)
	 */
	void add(BridgedSession session) {
		if (sessions.size() >= max) {
			throw new UpstreamTransportException(Kind.TOO_MANY_SESSIONS, "too_many_sessions",
					"The relay holds as many sessions with MCP server '" + serverId + "' as it may (" + max
							+ "); try again later.");
		}
		sessions.put(session.id(), session);
		for (String oldest : quota.admit(session.callerId(), session.id())) {
			BridgedSession ended = sessions.get(oldest);
			if (ended != null) {
				log.debug("A session of '{}' ended: its caller opened more than sessions.max-per-caller", serverId);
				ended.end("its caller opened more sessions than it may hold");
				onEvicted.run();
			}
		}
	}

	/** Forgets an ended session. */
	void remove(BridgedSession session) {
		if (sessions.remove(session.id(), session)) {
			quota.forget(session.callerId(), session.id());
		}
	}

	/**
	 * The live session with this id, opened by this caller.
	 *
	 * @throws UpstreamTransportException (404) when there is none here: never opened, ended, expired, opened by
	 * another caller, or by another replica
	 */
	BridgedSession require(String id, String callerId) {
		BridgedSession session = id == null ? null : sessions.get(id);
		if (session == null && id != null && endedBefore.contains(id)) {
			throw new UpstreamTransportException(Kind.UNKNOWN_SESSION, "session_ended", "This MCP session of server '"
					+ serverId + "' has ended: a configuration reload changed the server; initialize a new one.");
		}
		if (session == null || session.isEnded() || !Objects.equals(session.callerId(), callerId)) {
			throw new UpstreamTransportException(Kind.UNKNOWN_SESSION, "session_not_found",
					"No MCP session with that id is open for server '" + serverId + "' on this relay (it ended, "
							+ "expired, or was opened elsewhere); initialize a new one.");
		}
		session.touch();
		return session;
	}

	int size() {
		return sessions.size();
	}

	private void endIdle() {
		sessions.values().forEach(session -> {
			if (session.idleFor(idleTimeout)) {
				log.debug("A session of '{}' was idle for {}: ending it", serverId, idleTimeout);
				session.end("the session was idle");
			}
		});
	}

	/** Ends every session (shutdown). */
	@Override
	public void close() {
		sweeper.dispose();
		sessions.values().forEach(session -> session.end("the relay is shutting down"));
	}

	/**
	 * Ends every session because a reload removed or changed the server, their waiting POSTs failing with
	 * {@code failure}.
	 *
	 * @return the ids of the sessions it ended
	 */
	Set<String> retire(UpstreamTransportException failure) {
		sweeper.dispose();
		Set<String> ended = Set.copyOf(sessions.keySet());
		sessions.values().forEach(session -> session.end("a configuration reload removed or changed the server", failure));
		return ended;
	}

	/**
	 * Remembers the sessions of the bridge this one replaces, which a reload ended, so that a request still naming
	 * one is told its session ended ({@code session_ended}), not that it never was; the last reload's only (bounded
	 * by {@code sessions.max-bridged-sessions}).
	 */
	void endedBefore(Set<String> ids) {
		this.endedBefore = Set.copyOf(ids);
	}

	private static Duration max(Duration a, Duration b) {
		return a.compareTo(b) >= 0 ? a : b;
	}

}
