package dev.mcprelay.session;

/**
 * {@link StoreFailoverContract} over Redis watched by Sentinel whose master hangs (SIGSTOP) instead of dying: the
 * relays' connection to it stays open and its commands only time out, so nothing but the Sentinels'
 * {@code +switch-master} tells the relays to move to the promoted replica. The Sentinels and relays are
 * {@link StoreFailoverOverSentinelTest}'s; only the way the master is lost differs.
 */
class HungMasterOverSentinelTest extends StoreFailoverOverSentinelTest {

	@Override
	void loseAndAwaitPromotion(int master) throws Exception {
		sentinel.awaitReplicaInSync();
		sentinel.freezeMaster();
		sentinel.awaitFailoverFrom(master);
	}

}
