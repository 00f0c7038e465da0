package dev.mcprelay.proxy;

import java.time.Duration;

import reactor.core.publisher.Mono;

/**
 * The {@code timeouts.non-streaming} bound of one exchange: it covers connect, the response headers and, for a JSON
 * response, reading its body. Once the relay starts streaming a body to the client it is {@link #release()}d and
 * the per-event idle bound takes over.
 */
final class NonStreamingDeadline {

	private volatile boolean released;

	/** Stops the deadline; from now on the exchange is bounded by the streaming idle timeout only. */
	void release() {
		released = true;
	}

	/**
	 * A timeout companion for {@link Mono#timeout(org.reactivestreams.Publisher)}: fires once, unless released; its
	 * timer is armed on the event loop that subscribes ({@link EventLoopTimers}).
	 */
	Mono<Long> expiry(Duration limit) {
		return Mono.defer(() -> Mono.delay(limit, EventLoopTimers.current()))
			.flatMap(tick -> released ? Mono.never() : Mono.just(tick));
	}

}
