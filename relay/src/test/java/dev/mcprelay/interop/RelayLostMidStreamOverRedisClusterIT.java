package dev.mcprelay.interop;

import org.junit.jupiter.api.BeforeAll;

import dev.mcprelay.testsupport.RedisClusterProcesses;

/**
 * {@link RelayLostMidStreamIT} with the relays over a Redis Cluster of three masters with a replica each: a virtual
 * server's session, and the positions its merged stream resumes from, are on whichever master serves their hash slot.
 */
class RelayLostMidStreamOverRedisClusterIT extends RelayLostMidStreamIT {

	@BeforeAll
	static void overACluster() throws Exception {
		share(RedisClusterProcesses.start(1));
	}

}
