package dev.mcprelay.session;

import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;

/**
 * The store's current {@link SwitchHold}, if any, for {@link SentinelMasterSwitches}: one at a time, begun when the
 * Sentinels promote a replica, and ended once, by whichever comes first (the switch followed, the failover given up,
 * the hold's bound), each end logged at INFO through the owner's {@code log} ({@code The store is used again: <why>
 * (<how long it lasted and what became of its calls>)}). Never blocks.
 */
final class CurrentHold {

	private final AtomicReference<SwitchHold> hold = new AtomicReference<>();

	private final Logger log;

	CurrentHold(Logger log) {
		this.log = log;
	}

	/** A new hold of a failover away from {@code from} (may be null); null when the store is held already. */
	SwitchHold begin(String from) {
		SwitchHold started = new SwitchHold(from);
		return hold.compareAndSet(null, started) ? started : null;
	}

	/** The current hold; null while the store is not held. */
	SwitchHold get() {
		return hold.get();
	}

	/**
	 * Ends {@code ended} if it is still the current hold: its waiters go on off the event loops, and the log says why,
	 * how long it lasted and what became of the calls that waited.
	 */
	void end(SwitchHold ended, String why) {
		if (hold.compareAndSet(ended, null)) {
			log.info("The store is used again: {} ({})", why, ended.end());
		}
	}

	/** Ends the current hold, if any, as {@link #end} does. */
	void release(String why) {
		SwitchHold current = hold.get();
		if (current != null) {
			end(current, why);
		}
	}

}
