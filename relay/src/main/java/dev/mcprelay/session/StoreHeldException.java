package dev.mcprelay.session;

import java.time.Duration;

/**
 * A call to the shared store that a master switch kept from being answered in time: the store was {@link StoreHold
 * held} while the Sentinels switch its master, for longer than the call's own bound (the call was not made), or for
 * part of it, and the new master did not answer in what was left. It is answered as when Redis is away (503
 * {@code session_store_unavailable}, a rate limit by its {@code on-store-failure}), and the same call made again once
 * the new master is named is answered. Its message says which, and names no key, session or secret.
 */
public class StoreHeldException extends RuntimeException {

	/** The call waited all of {@code bound} for the hold to end, and was not made. */
	public StoreHeldException(Duration bound) {
		super("held while the Sentinels switch the store's master, longer than the call's bound of " + bound.toMillis()
				+ " ms: not asked of Redis; calls are made again once the new master is named", null, false, false);
	}

	/**
	 * The call waited {@code held} for the hold to end, then the new master did not answer in what was left of
	 * {@code bound} ({@code silent}).
	 */
	public StoreHeldException(Duration held, Duration bound, Throwable silent) {
		super("held " + held.toMillis() + " ms while the Sentinels switched the store's master, then no answer from the "
				+ "new master in the " + Math.max(0, bound.minus(held).toMillis()) + " ms left of the call's bound of "
				+ bound.toMillis() + " ms", silent, false, false);
	}

}
