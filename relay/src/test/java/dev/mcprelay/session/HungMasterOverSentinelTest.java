package dev.mcprelay.session;

import org.junit.jupiter.api.BeforeAll;

import dev.mcprelay.testsupport.RedisSentinelProcesses;

/**
 * {@link StoreFailoverContract} over Redis watched by Sentinel whose master hangs (SIGSTOP) instead of dying: the
 * relays' connection to it stays open and its commands only time out, so nothing but the Sentinels'
 * {@code +switch-master} tells the relays to move to the promoted replica.
 */
class HungMasterOverSentinelTest extends StoreFailoverContract {

	static RedisSentinelProcesses sentinel;

	@BeforeAll
	static void start() throws Exception {
		sentinel = RedisSentinelProcesses.start();
		startRelaysOver(sentinel);
	}

	@Override
	int doomedMaster() throws Exception {
		return sentinel.masterPort();
	}

	@Override
	boolean holds(int master, String key) {
		return true;
	}

	@Override
	void loseAndAwaitPromotion(int master) throws Exception {
		sentinel.awaitReplicaInSync();
		sentinel.freezeMaster();
		sentinel.awaitFailoverFrom(master);
	}

}
