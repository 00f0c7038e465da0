package dev.mcprelay.session;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

import dev.mcprelay.OffEventLoop;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One hold of the store while the Sentinels switch its master ({@link SentinelMasterSwitches}): what the store's
 * calls wait for, and what became of them, for the line that says the hold ended. A call that waits is counted once;
 * one whose own bound passes first (or whose client leaves) is counted as given up, and fails with
 * {@link StoreHeldException}; the others go on once it ends. It knows the master the Sentinels began to promote a
 * replica of ({@link #from}), so that a switch missed during the hold is told from no switch at all.
 */
final class SwitchHold {

	private final String from;

	private final Sinks.Empty<Void> ended = Sinks.empty();

	private final long began = System.nanoTime();

	private final LongAdder waited = new LongAdder();

	private final LongAdder gaveUp = new LongAdder();

	/** A hold of a failover away from {@code from} ({@code host:port}, null when the promotion did not say). */
	SwitchHold(String from) {
		this.from = from;
	}

	/** The master ({@code host:port}) the Sentinels began to promote a replica of; null when it was not said. */
	String from() {
		return from;
	}

	/**
	 * How long the caller waited, when the hold ends; fails with {@link StoreHeldException} once {@code bound} has
	 * passed.
	 */
	Mono<Duration> released(Duration bound) {
		return Mono.defer(() -> {
			long from = System.nanoTime();
			return ended.asMono()
				.doOnSubscribe(subscription -> waited.increment())
				.doOnCancel(gaveUp::increment)
				.timeout(bound, Mono.error(() -> new StoreHeldException(bound)))
				.then(Mono.fromSupplier(() -> Duration.ofNanos(System.nanoTime() - from)));
		});
	}

	/** Lets the waiters go on, off the event loops; says how long it lasted and what became of its calls. */
	String end() {
		OffEventLoop.SCHEDULER.schedule(ended::tryEmitEmpty);
		long calls = waited.sum();
		long late = gaveUp.sum();
		String lasted = "held " + Duration.ofNanos(System.nanoTime() - began).toMillis() + " ms";
		if (calls == 0) {
			return lasted + "; no call waited";
		}
		return lasted + "; " + calls + (calls == 1 ? " call" : " calls") + " waited: " + (calls - late)
				+ " go on now, " + late + " gave up first (their own bound passed, and they were answered as when Redis "
				+ "is away, or their client left)";
	}

}
