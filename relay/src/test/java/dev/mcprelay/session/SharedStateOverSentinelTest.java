package dev.mcprelay.session;

import org.junit.jupiter.api.BeforeAll;

import dev.mcprelay.testsupport.RedisSentinelProcesses;

/**
 * {@link SharedStateContract} over Redis watched by Sentinel: a master, a replica and three Sentinels, the relays
 * given only {@code spring.data.redis.sentinel.master} and {@code nodes}.
 */
class SharedStateOverSentinelTest extends SharedStateContract {

	@BeforeAll
	static void start() throws Exception {
		startRelaysOver(RedisSentinelProcesses.start());
	}

}
