package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.testsupport.RedisSentinelProcesses;

/**
 * {@link SharedStateContract} over Redis watched by Sentinel: a master, a replica and three Sentinels, the relays
 * given only {@code spring.data.redis.sentinel.master} and {@code nodes} (the replica refuses writes: every store's
 * writes reach the master the Sentinels name).
 */
class SharedStateOverSentinelTest extends SharedStateContract {

	static RedisSentinelProcesses sentinel;

	@BeforeAll
	static void start() throws Exception {
		sentinel = RedisSentinelProcesses.start();
		startRelaysOver(sentinel);
	}

	@Test
	void theHealthNamesTheMasterTheSentinelsWatch() {
		for (ConfigurableApplicationContext relay : List.of(first(), second())) {
			Health health = relay.getBean(RelayStoreHealth.class).health().block(Duration.ofSeconds(10));
			assertThat(health.getDetails()).containsEntry("topology", "sentinel")
				.containsEntry("master", RedisSentinelProcesses.MASTER);
		}
	}

}
