package dev.mcprelay.session;

import java.time.Duration;

import reactor.core.publisher.Mono;

/**
 * Whether the shared store may be used now: while the Sentinels promote a replica of the store's master
 * ({@link SentinelMasterSwitches}), the old master still takes writes and throws them away when it is demoted, so the
 * store's users wait until the promoted master is named (within their own bound) rather than write there.
 */
@FunctionalInterface
public interface StoreHold {

	/** What {@link #released} gives a call the store did not hold. */
	Mono<Duration> NOT_HELD = Mono.just(Duration.ZERO);

	/** A store that is never held: standalone Redis, a Cluster, the memory store. */
	StoreHold NEVER = bound -> NOT_HELD;

	/**
	 * How long the caller waited once the store may be used: zero at once when it is not held, else the wait when the
	 * hold ends (the new master is named and the store's connections go there, the failover was given up, or the
	 * hold's own limit passed); fails with {@link StoreHeldException} when it is still held once {@code bound} has
	 * passed (a caller's wait told from Redis not answering). Completes off the event loops.
	 */
	Mono<Duration> released(Duration bound);

	/**
	 * A call to the store failed with {@code error}: through Sentinel, a {@code READONLY} answer has the relay move the
	 * store's connections to the master the Sentinels name ({@link SentinelMasterSwitches#failed}). Never blocks,
	 * never fails; nothing by default.
	 */
	default void failed(Throwable error) {
	}

}
