package dev.mcprelay.interceptors;

import java.time.Duration;

/**
 * The one bound of a request's rate-limit check, across every rule it matches and the tokens given back: the rules are
 * asked one after the other, each with what is left of it, so that a store (Redis) that hangs costs a request this
 * bound once, not once per rule. The clock starts when the store is first asked, not before: waiting for a connection
 * still being opened is not the store failing. Used by one check at a time (its steps follow one another).
 */
final class CheckDeadline {

	private final Duration bound;

	private volatile long end;

	private volatile boolean started;

	CheckDeadline(Duration bound) {
		this.bound = bound;
	}

	/** What is left of the bound (zero once it passed), the clock started by the first call. */
	Duration remaining() {
		long now = System.nanoTime();
		if (!started) {
			end = now + bound.toNanos();
			started = true;
		}
		return Duration.ofNanos(Math.max(0, end - now));
	}

}
