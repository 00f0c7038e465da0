package dev.mcprelay.proxy;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

import reactor.core.publisher.Mono;

/**
 * The {@code timeouts.non-streaming} bound of one exchange: it covers connect, the response headers and, for a JSON
 * response, reading its body. Once the relay starts streaming a body to the client it is {@link #release()}d and
 * the per-event idle bound takes over. Until then, the relay's shutdown cuts the exchange too ({@link OpenStreams}):
 * an answer that has not begun streaming when the grace period ends will not come.
 */
final class NonStreamingDeadline {

	private volatile boolean released;

	/** What ended the exchange before it ended on its own; {@code null} while nothing did. */
	private volatile RuntimeException cut;

	private volatile boolean expired;

	/** Stops the deadline; from now on the exchange is bounded by the streaming idle timeout only. */
	void release() {
		released = true;
	}

	/**
	 * {@code exchange} bounded by {@code limit} and by {@code shutdown}: when the limit passes before it ends and the
	 * deadline was not released, the exchange is cancelled and the result fails with a {@link TimeoutException}; when
	 * {@code shutdown} completes first, with a {@link RelayShuttingDownException}. The timer is armed on the event loop
	 * that subscribes ({@link EventLoopTimers}) and cancelled when the exchange ends first. (Reactor's own
	 * {@code timeout} operator names the source it bounds on every subscription, by a regular expression over class
	 * names: a cost per exchange this bound does not pay.)
	 *
	 * @param shutdown completes when the relay's shutdown ends exchanges of this kind ({@link OpenStreams#closing})
	 */
	Mono<Void> bound(Mono<Void> exchange, Duration limit, Mono<Void> shutdown) {
		Mono<Long> expiry = Mono.defer(() -> Mono.delay(limit, EventLoopTimers.current()))
			.flatMap(tick -> released ? Mono.<Long>never() : Mono.just(tick))
			.doOnNext(tick -> expired = true);
		Mono<Boolean> shutDown = shutdown.then(Mono.defer(() -> released ? Mono.<Boolean>never() : Mono.just(true)))
			.doOnNext(cutNow -> cut = new RelayShuttingDownException());
		return exchange.takeUntilOther(expiry)
			.takeUntilOther(shutDown)
			.then(Mono.defer(() -> expired ? Mono.error(new TimeoutException("no answer within " + limit))
					: cut != null ? Mono.error(cut) : Mono.empty()));
	}

}
