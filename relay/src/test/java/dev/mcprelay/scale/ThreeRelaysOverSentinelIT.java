package dev.mcprelay.scale;

import org.junit.jupiter.api.BeforeAll;

import dev.mcprelay.testsupport.RedisSentinelProcesses;

/** {@link RelaysBehindALoadBalancerContract} over a master, a replica and three Sentinels. */
class ThreeRelaysOverSentinelIT extends RelaysBehindALoadBalancerContract {

	@BeforeAll
	static void start() throws Exception {
		startOver(RedisSentinelProcesses.start(), "sentinel");
	}

}
