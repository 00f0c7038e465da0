package dev.mcprelay.session;

import org.junit.jupiter.api.BeforeAll;

import dev.mcprelay.testsupport.RedisSentinelProcesses;

/**
 * {@link StoreFailoverContract} over Redis watched by Sentinel: the master killed, the Sentinels (quorum two,
 * {@code down-after-milliseconds} 2000) promote the replica, and the relays, given only
 * {@code spring.data.redis.sentinel.*}, find it through them.
 */
class StoreFailoverOverSentinelTest extends StoreFailoverContract {

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
		sentinel.killMaster();
		sentinel.awaitFailoverFrom(master);
	}

}
