package dev.mcprelay.scale;

import org.junit.jupiter.api.BeforeAll;

import dev.mcprelay.testsupport.RedisServerProcess;

/** {@link RelaysBehindALoadBalancerContract} over one Redis server. */
class ThreeRelaysOverStandaloneRedisIT extends RelaysBehindALoadBalancerContract {

	@BeforeAll
	static void start() throws Exception {
		startOver(RedisServerProcess.start(), "standaloneredis");
	}

}
