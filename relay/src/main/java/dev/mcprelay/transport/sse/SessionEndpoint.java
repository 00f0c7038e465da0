package dev.mcprelay.transport.sse;

import java.net.URI;
import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.mcprelay.sse.SseEvent;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Where one bridged session's messages go, decided once from what its event stream says: an endpoint the stream
 * names (an {@code endpoint} event, or a JSON payload naming one, {@link MessageEndpoint#fromEvent}) whenever it
 * names it within the wait for it; otherwise the endpoint a session id in the stream's response headers implies
 * ({@link MessageEndpoint#fromSessionId}), once the stream dispatches an event that names none (a message) or names
 * nothing for the header's grace. What SSE never dispatches (a comment such as {@code : hello}, a block of only
 * {@code retry:} or {@code id:} fields) decides nothing. A header never overrides an endpoint the stream names in time:
 * the 2024-11-05 transport's {@code endpoint} event is what says where to POST; one named after the header decided is
 * logged, since the session's messages go elsewhere. Thread-safe: the stream's events come on its event loop, the
 * grace's end on a timer.
 */
final class SessionEndpoint {

	private static final Logger log = LoggerFactory.getLogger(SessionEndpoint.class);

	/**
	 * How long a session id in the stream's headers waits, at most, for the stream to name its endpoint: long enough for
	 * a server that sends its {@code endpoint} event after some work of its own, short enough that a server that names
	 * its session only in a header is not kept waiting. A transport whose whole wait is shorter waits half of it.
	 */
	static final Duration HEADER_GRACE = Duration.ofSeconds(1);

	private final String serverId;

	private final URI streamUri;

	private final Duration headerGrace;

	private final Sinks.One<URI> decided = Sinks.one();

	/** Set once, under {@code this}. */
	private volatile URI uri;

	/** The endpoint a session id in the stream's response headers implies, if it had one. */
	private volatile URI fromHeader;

	/** Whether the header's session id decided; set with {@link #uri}. */
	private volatile boolean byHeader;

	/** Decides on {@link #fromHeader} when the stream names nothing. */
	private volatile Disposable fallback;

	/**
	 * @param headerGrace how long a session id in the stream's headers waits for the stream to name the endpoint
	 */
	SessionEndpoint(String serverId, URI streamUri, Duration headerGrace) {
		this.serverId = serverId;
		this.streamUri = streamUri;
		this.headerGrace = headerGrace;
	}

	/** The endpoint, once decided; fails when it never will be ({@link #fail}). */
	Mono<URI> uri() {
		return decided.asMono();
	}

	/** Whether it is decided: from then on every event of the stream is a message. */
	boolean known() {
		return uri != null;
	}

	/** The stream's response headers name session {@code sessionId}: its endpoint, unless the stream names one. */
	void header(String sessionId) {
		URI implied = MessageEndpoint.fromSessionId(streamUri, sessionId);
		fromHeader = implied;
		fallback = Mono.delay(headerGrace).subscribe(tick -> decide(implied, true));
	}

	/**
	 * Reads an event that came before the endpoint was decided.
	 *
	 * @return whether the event named the endpoint (then it is no message); when it is a dispatched event that named
	 * none, a session id of the stream's headers decides
	 * @throws IllegalArgumentException when it names an endpoint the relay cannot use (no URL, another origin)
	 */
	boolean offer(SseEvent event) {
		URI named = MessageEndpoint.fromEvent(streamUri, event);
		if (named != null) {
			decide(named, false);
			return true;
		}
		URI implied = fromHeader;
		if (implied != null && dispatched(event)) {
			decide(implied, true);
		}
		return false;
	}

	/**
	 * Whether {@code event}, come after the endpoint was decided, is an {@code endpoint} event naming another one (the
	 * server named it after the header's grace): logged, and not a message.
	 */
	boolean namedLate(SseEvent event) {
		if (!"endpoint".equals(event.event())) {
			return false;
		}
		if (!byHeader) {
			log.debug("MCP server '{}' named its message endpoint again; the first stays", serverId);
			return true;
		}
		log.warn("MCP server '{}' named its message endpoint more than {} after opening its event stream; the relay had "
				+ "taken the session id of the stream's headers, and the session's messages go there", serverId,
				headerGrace);
		return true;
	}

	/** No endpoint will be decided: whoever waits for it gets {@code error}. Nothing happens once it is decided. */
	void fail(Throwable error) {
		if (!known()) {
			decided.tryEmitError(error);
		}
	}

	/** The session ended: the grace's timer stops. */
	void close() {
		Disposable timer = fallback;
		if (timer != null) {
			timer.dispose();
		}
	}

	/** Whether an SSE client would dispatch the event: it has data (a comment, or fields alone, are not). */
	private static boolean dispatched(SseEvent event) {
		return event.data() != null && !event.data().isEmpty();
	}

	private synchronized void decide(URI endpoint, boolean fromTheHeader) {
		if (uri != null) {
			return;
		}
		byHeader = fromTheHeader;
		uri = endpoint;
		decided.tryEmitValue(endpoint);
	}

}
