package dev.mcprelay.bridge;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The upstream sessions of direction 2 ({@link UpstreamSessions}) whose server offers no GET stream, as this replica
 * learnt from a listen's GET ({@link SessionEraListen}): answered 405, or 404 in a session the server still knows (a
 * server that routes only POST answers any GET 404, "Cannot GET /mcp"; review 46f, F2). A later listen in such a
 * session is refused at once ({@code listen_not_available}): nothing is sent, no session is opened again. Keyed by the
 * server's session id ({@code null}: a server that keeps no sessions, all of whose clients it then covers); at most
 * {@value #MAX_SESSIONS} remembered, the least recently learnt forgotten first. Thread-safe.
 */
final class StreamlessSessions {

	/** The most sessions remembered. */
	static final int MAX_SESSIONS = 4096;

	private final Map<String, Boolean> streamless = new LinkedHashMap<>(16, 0.75f, false) {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
			return size() > MAX_SESSIONS;
		}

	};

	/** Remembers that the server offers no GET stream in {@code session}. */
	synchronized void remember(UpstreamSession session) {
		streamless.put(keyOf(session), Boolean.TRUE);
	}

	/** Whether the server was seen to offer no GET stream in {@code session}. */
	synchronized boolean offersNone(UpstreamSession session) {
		return streamless.containsKey(keyOf(session));
	}

	private static String keyOf(UpstreamSession session) {
		return session.sessionId() == null ? "" : "session:" + session.sessionId();
	}

}
