package dev.mcprelay.session;

import reactor.core.publisher.Mono;

/**
 * Whether the shared store may be used now: while the Sentinels promote a replica of the store's master
 * ({@link SentinelMasterSwitches}), the old master still takes writes and throws them away when it is demoted, so the
 * store's users wait until the promoted master is named (within their own bound) rather than write there.
 */
@FunctionalInterface
public interface StoreHold {

	/** A store that is never held: standalone Redis, a Cluster, the memory store. */
	StoreHold NEVER = Mono::empty;

	/**
	 * Completes once the store may be used: at once when it is not held, else when the hold ends (the new master is
	 * named and the store's connections go there, the failover was given up, or the hold's own limit passed). Never
	 * fails; a caller bounds its wait itself. Completes off the event loops.
	 */
	Mono<Void> released();

}
