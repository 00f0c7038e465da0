package dev.mcprelay.bridge;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The upstream sessions of direction 2 ({@link UpstreamSessions}) whose server offered no GET stream when last asked,
 * as this replica learnt from a listen's GET ({@link SessionEraListen}): answered 405, or 404 in a session the server
 * still knows (a server that routes only POST answers any GET 404, "Cannot GET /mcp"; review 46f, F2). A later listen
 * in such a session is refused at once ({@code listen_not_available}): nothing is sent, no session is opened again.
 *
 * <p>A mark lasts {@link #LOOK_AGAIN}, no longer: the first listen after it sends a GET again (review 46h, N2: one
 * transient 404, a proxy or a redeploy in front of the server, had the session refuse every listen for its life).
 * Keyed by the server's session id, or, for a server that keeps no sessions ({@code null} id), by the client the
 * relay's upstream session is for ({@link ModernClient#key}): one client's GET never marks another client's listens.
 * At most {@value #MAX_SESSIONS} remembered, the least recently marked forgotten first. Thread-safe.
 */
final class StreamlessSessions {

	/** The most sessions remembered. */
	static final int MAX_SESSIONS = 4096;

	/**
	 * How long a mark lasts (as long as a verdict of the server's is shared, {@link ServerVersions#PROBE_INTERVAL}): the
	 * first listen after it asks the server again.
	 */
	static final Duration LOOK_AGAIN = ServerVersions.PROBE_INTERVAL;

	private final LongSupplier nanoClock;

	/** When each session was marked (nano time), the least recently marked first; guarded by {@code this}. */
	private final Map<String, Long> markedAt = new LinkedHashMap<>(16, 0.75f, false) {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
			return size() > MAX_SESSIONS;
		}

	};

	StreamlessSessions() {
		this(System::nanoTime);
	}

	StreamlessSessions(LongSupplier nanoClock) {
		this.nanoClock = nanoClock;
	}

	/** Remembers, for {@link #LOOK_AGAIN}, that the server offers no GET stream in {@code session} of {@code client}. */
	synchronized void remember(UpstreamSession session, String client) {
		String key = keyOf(session, client);
		markedAt.remove(key);
		markedAt.put(key, nanoClock.getAsLong());
	}

	/**
	 * Whether the server was seen to offer no GET stream in {@code session} of {@code client} less than
	 * {@link #LOOK_AGAIN} ago; marks older than that are forgotten.
	 */
	synchronized boolean offersNone(UpstreamSession session, String client) {
		long now = nanoClock.getAsLong();
		long lifetime = LOOK_AGAIN.toNanos();
		for (Iterator<Long> marks = markedAt.values().iterator(); marks.hasNext();) {
			if (now - marks.next() < lifetime) {
				break;
			}
			marks.remove();
		}
		return markedAt.containsKey(keyOf(session, client));
	}

	private static String keyOf(UpstreamSession session, String client) {
		return session.sessionId() == null ? "client:" + client : "session:" + session.sessionId();
	}

}
