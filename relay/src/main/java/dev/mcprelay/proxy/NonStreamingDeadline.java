package dev.mcprelay.proxy;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

import reactor.core.publisher.Mono;

/**
 * The {@code timeouts.non-streaming} bound of one exchange: it covers connect, the response headers and, for a JSON
 * response, reading its body. Once the relay starts streaming a body to the client it is {@link #release()}d and
 * the per-event idle bound takes over.
 */
final class NonStreamingDeadline {

	private volatile boolean released;

	private volatile boolean expired;

	/** Stops the deadline; from now on the exchange is bounded by the streaming idle timeout only. */
	void release() {
		released = true;
	}

	/**
	 * {@code exchange} bounded by {@code limit}: when the limit passes before it ends and the deadline was not
	 * released, the exchange is cancelled and the result fails with a {@link TimeoutException}. The timer is armed on
	 * the event loop that subscribes ({@link EventLoopTimers}) and cancelled when the exchange ends first. (Reactor's
	 * own {@code timeout} operator names the source it bounds on every subscription, by a regular expression over
	 * class names: a cost per exchange this bound does not pay.)
	 */
	Mono<Void> bound(Mono<Void> exchange, Duration limit) {
		Mono<Long> expiry = Mono.defer(() -> Mono.delay(limit, EventLoopTimers.current()))
			.flatMap(tick -> released ? Mono.<Long>never() : Mono.just(tick))
			.doOnNext(tick -> expired = true);
		return exchange.takeUntilOther(expiry)
			.then(Mono.defer(() -> expired ? Mono.error(new TimeoutException("no answer within " + limit))
					: Mono.empty()));
	}

}
