package dev.mcprelay.virtual;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a member's stream waits before it is opened again: {@link #FIRST} after it ended or first failed, doubled
 * per failure in a row up to {@link #MAX}, each wait spread by a quarter either way (so that the streams of many
 * sessions do not all knock at a member that comes back in the same instant); back to {@link #FIRST} as soon as a
 * stream opens. A member that was down for a while and fails again once later waits {@link #FIRST}, not the long wait
 * its earlier outage had reached. Thread-safe.
 */
final class StreamBackoff {

	/** The wait after a stream ended, or after its first failure. */
	static final Duration FIRST = Duration.ofMillis(500);

	/** The longest wait. */
	static final Duration MAX = Duration.ofSeconds(30);

	/** Failures in a row since the stream last opened; guarded by {@code this}. */
	private int failures;

	/** The wait before the next attempt, after a failure. */
	synchronized Duration afterFailure() {
		long millis = Math.min(MAX.toMillis(), FIRST.toMillis() << Math.min(failures, 16));
		failures++;
		return spread(millis);
	}

	/** The wait before the stream is opened again after it ended on its own (a member closes its stream now and then). */
	Duration afterEnd() {
		return spread(FIRST.toMillis());
	}

	/** The stream opened: the next failure waits {@link #FIRST} again. */
	synchronized void opened() {
		failures = 0;
	}

	private static Duration spread(long millis) {
		long quarter = millis / 4;
		return Duration.ofMillis(millis - quarter + ThreadLocalRandom.current().nextLong(2 * quarter + 1));
	}

}
