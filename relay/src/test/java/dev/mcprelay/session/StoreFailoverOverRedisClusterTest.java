package dev.mcprelay.session;

import org.junit.jupiter.api.BeforeAll;

import dev.mcprelay.testsupport.RedisClusterProcesses;

/**
 * {@link StoreFailoverContract} over a Redis Cluster of three masters with a replica each
 * ({@code redis-cli --cluster create ... --cluster-replicas 1}): the master that holds the fail-closed rule's budget
 * and some of the sessions is killed, its replica takes its slots after {@code cluster-node-timeout}, and the relays,
 * given only {@code spring.data.redis.cluster.nodes}, must learn the new topology to reach them again.
 */
class StoreFailoverOverRedisClusterTest extends StoreFailoverContract {

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
		cluster.kill(master);
		cluster.awaitFailoverOf(master, budget);
	}

	/** The key of the fail-closed rule's one budget (every caller is anonymous here). */
	private static String budget() throws Exception {
		return cluster.keys("mcp-relay:rate-limit:closed-calls*").keySet().iterator().next();
	}

}
