package dev.mcprelay.session;

import org.junit.jupiter.api.BeforeAll;

import dev.mcprelay.testsupport.RedisClusterProcesses;

/**
 * {@link StoreFailoverContract} over a Redis Cluster whose master hangs (SIGSTOP) instead of dying: its connections
 * stay open and its commands only time out, which fires none of Lettuce's adaptive topology refreshes; the relays must
 * still move its slots to the replica the Cluster promoted (their periodic topology refresh, which waits for the hung
 * node no longer than the client's command timeout) rather than wait for the master to come back.
 */
class HungMasterOverRedisClusterTest extends StoreFailoverContract {

	static RedisClusterProcesses cluster;

	@BeforeAll
	static void start() throws Exception {
		cluster = RedisClusterProcesses.start(1);
		startRelaysOver(cluster);
	}

	@Override
	int doomedMaster() throws Exception {
		return cluster.masterOf(budget());
	}

	@Override
	boolean holds(int master, String key) throws Exception {
		return cluster.masterOf(key) == master;
	}

	@Override
	void loseAndAwaitPromotion(int master) throws Exception {
		String budget = budget();
		cluster.awaitReplicasInSync();
		cluster.freeze(master);
		cluster.awaitFailoverOf(master, budget);
	}

	/** The key of the fail-closed rule's one budget (every caller is anonymous here). */
	private static String budget() throws Exception {
		return cluster.keys("mcp-relay:rate-limit:closed-calls*").keySet().iterator().next();
	}

}
