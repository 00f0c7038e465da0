package dev.mcprelay.transport.sse;

import java.net.URI;
import java.time.Duration;

import dev.mcprelay.sse.SseEvent;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Where one bridged session's messages go, decided once from what its event stream says first: its first event, when
 * it names an endpoint (an {@code endpoint} event, or a JSON payload naming one, {@link MessageEndpoint#fromEvent});
 * otherwise the endpoint a session id in the stream's response headers implies
 * ({@link MessageEndpoint#fromSessionId}), also when no event comes within {@link #HEADER_GRACE}. A header never
 * overrides an endpoint the stream names: the 2024-11-05 transport's {@code endpoint} event is what says where to
 * POST. Thread-safe: the stream's events come on its event loop, the grace's end on a timer.
 */
final class SessionEndpoint {

	/** How long a session id in the stream's headers waits for an event naming the endpoint before it decides. */
	static final Duration HEADER_GRACE = Duration.ofMillis(250);

	private final URI streamUri;

	private final Sinks.One<URI> decided = Sinks.one();

	/** Set once, under {@code this}. */
	private volatile URI uri;

	/** The endpoint a session id in the stream's response headers implies, if it had one. */
	private volatile URI fromHeader;

	/** Decides on {@link #fromHeader} when no event comes. */
	private volatile Disposable fallback;

	SessionEndpoint(URI streamUri) {
		this.streamUri = streamUri;
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
		fallback = Mono.delay(HEADER_GRACE).subscribe(tick -> decide(implied));
	}

	/**
	 * Reads an event that came before the endpoint was decided.
	 *
	 * @return whether the event named the endpoint (then it is no message); when it named none, a session id of the
	 * stream's headers decides
	 * @throws IllegalArgumentException when it names an endpoint the relay cannot use (no URL, another origin)
	 */
	boolean offer(SseEvent event) {
		URI named = MessageEndpoint.fromEvent(streamUri, event);
		if (named != null) {
			decide(named);
			return true;
		}
		URI implied = fromHeader;
		if (implied != null) {
			decide(implied);
		}
		return false;
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

	private synchronized void decide(URI endpoint) {
		if (uri != null) {
			return;
		}
		uri = endpoint;
		decided.tryEmitValue(endpoint);
	}

}
