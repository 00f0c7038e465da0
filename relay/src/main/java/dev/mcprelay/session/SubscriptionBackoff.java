package dev.mcprelay.session;

import java.time.Duration;

/**
 * How long {@link SentinelSubscription} waits before it subscribes to a Sentinel again: 1 s after the first failure,
 * doubling with each failure after it, up to 30 s. A subscription taken does not start it again from 1 s: only one that
 * {@link #LASTED lasted} a minute does (review 45g G-1: a Sentinel that answered each check just too late was dropped
 * and subscribed again every ~5 s for ever, as each subscription reset the backoff). Times are {@link System#nanoTime}
 * values, passed in, so the sequence is a function of them. Thread-safe; never fails.
 */
final class SubscriptionBackoff {

	/** The wait after the first failure. */
	static final Duration FIRST = Duration.ofSeconds(1);

	/** The longest wait. */
	static final Duration MAX = Duration.ofSeconds(30);

	/** How long a subscription must have been kept for the next failure to wait {@link #FIRST} again. */
	static final Duration LASTED = Duration.ofMinutes(1);

	/** Failures since the last subscription that lasted (or since the start). */
	private int failures;

	/** When the current subscription was taken, or null while there is none. */
	private Long subscribedAt;

	/** A subscription was taken at {@code now}. */
	synchronized void subscribed(long now) {
		subscribedAt = now;
	}

	/** A subscription attempt failed, or a subscription was lost, at {@code now}: how long to wait before the next. */
	synchronized Duration next(long now) {
		if (subscribedAt != null && now - subscribedAt >= LASTED.toNanos()) {
			failures = 0;
		}
		subscribedAt = null;
		Duration wait = FIRST.multipliedBy(1L << Math.min(failures, 5));
		failures++;
		return wait.compareTo(MAX) > 0 ? MAX : wait;
	}

}
