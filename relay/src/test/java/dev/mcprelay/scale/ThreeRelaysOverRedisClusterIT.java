package dev.mcprelay.scale;

import org.junit.jupiter.api.BeforeAll;

import dev.mcprelay.testsupport.RedisClusterProcesses;

/** {@link RelaysBehindALoadBalancerContract} over a Cluster of three masters with a replica each. */
class ThreeRelaysOverRedisClusterIT extends RelaysBehindALoadBalancerContract {

	@BeforeAll
	static void start() throws Exception {
		startOver(RedisClusterProcesses.start(1), "rediscluster");
	}

}
