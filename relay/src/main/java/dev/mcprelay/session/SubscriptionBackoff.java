package dev.mcprelay.session;

import java.time.Duration;

/**
 * How long {@link SentinelSubscription} waits before it subscribes to a Sentinel again: 1 s after the first failure,
 * doubling with each failure after it, up to {@link #UNREACHABLE_MAX 4 s} while the Sentinel cannot be reached (its
 * connection refused or closed: a Sentinel restarting, a path cut; trying again costs it nothing, and a relay not
 * subscribed does not see its failovers, review 45h H-1), up to {@link #MAX 30 s} when it answers but not as it should
 * (a refusal, no answer in time). A subscription taken does not start it again from 1 s: only one that
 * {@link #answered answered} {@link #IN_A_ROW} checks in a row in time does (review 45g G-1: a Sentinel that answered
 * each check just too late was dropped and subscribed again every ~5 s for ever, as each subscription reset the
 * backoff; review 45h H-1: a subscription had to last a minute, so after an unstable minute a Sentinel that was back was
 * tried again only 30 s later; review 45i I-2: one check in time was enough, so a Sentinel whose answers straddle the
 * bound, some in time and some late, was subscribed again every ~8 s for ever). Thread-safe; never fails.
 */
final class SubscriptionBackoff {

	/** The wait after the first failure. */
	static final Duration FIRST = Duration.ofSeconds(1);

	/** The longest wait after a Sentinel that answered but refused, or did not answer in time. */
	static final Duration MAX = Duration.ofSeconds(30);

	/** The longest wait after a Sentinel that could not be reached (connection refused or closed). */
	static final Duration UNREACHABLE_MAX = Duration.ofSeconds(4);

	/**
	 * How long a subscription must have been kept for its loss to be logged again after one logged
	 * ({@link FollowedSentinels}).
	 */
	static final Duration LASTED = Duration.ofMinutes(1);

	/** How many checks in a row a subscription answers in time before the backoff starts from {@link #FIRST} again. */
	static final int IN_A_ROW = 5;

	/** Failures since the last subscription that answered {@link #IN_A_ROW} checks in a row in time (or the start). */
	private int failures;

	/** Checks the current subscription answered in time, in a row. */
	private int inTime;

	/**
	 * The current subscription answered a check in time: once it has {@link #IN_A_ROW} in a row, the next failure waits
	 * {@link #FIRST} again.
	 */
	synchronized void answered() {
		if (++inTime >= IN_A_ROW) {
			failures = 0;
		}
	}

	/**
	 * A subscription attempt failed, or a subscription was lost: how long to wait before the next; at most
	 * {@link #UNREACHABLE_MAX} when the Sentinel could not be reached ({@code unreachable}), else {@link #MAX}.
	 */
	synchronized Duration next(boolean unreachable) {
		inTime = 0;
		Duration wait = FIRST.multipliedBy(1L << Math.min(failures, 5));
		failures++;
		Duration max = max(unreachable);
		return wait.compareTo(max) > 0 ? max : wait;
	}

	/** The longest wait after a failure of that kind. */
	static Duration max(boolean unreachable) {
		return unreachable ? UNREACHABLE_MAX : MAX;
	}

}
