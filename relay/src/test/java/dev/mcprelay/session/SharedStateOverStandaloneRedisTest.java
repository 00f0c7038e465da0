package dev.mcprelay.session;

import org.junit.jupiter.api.BeforeAll;

import dev.mcprelay.testsupport.RedisServerProcess;

/** {@link SharedStateContract} over one Redis server ({@code spring.data.redis.host} and {@code port}). */
class SharedStateOverStandaloneRedisTest extends SharedStateContract {

	@BeforeAll
	static void start() throws Exception {
		RedisServerProcess.installedOrSkip();
		startRelaysOver(RedisServerProcess.start());
	}

}
