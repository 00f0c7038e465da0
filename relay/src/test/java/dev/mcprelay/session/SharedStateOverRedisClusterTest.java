package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RedisClusterProcesses;

/**
 * {@link SharedStateContract} over a Redis Cluster of three masters, the relays given only
 * {@code spring.data.redis.cluster.nodes}: every script and multi-key command the stores send stays within one hash
 * slot, or Cluster would refuse it; and a session's keys are on one master.
 */
class SharedStateOverRedisClusterTest extends SharedStateContract {

	static RedisClusterProcesses cluster;

	@BeforeAll
	static void start() throws Exception {
		cluster = RedisClusterProcesses.start();
		startRelaysOver(cluster);
	}

	@Test
	void aSessionsKeysAreOnOneMaster() throws Exception {
		String session = McpSession.open(as(CAROL, first()), "searching").id();
		assertThat(post(second(), CAROL, "searching", session, call(1, "search_available_tools", "{\"query\":\"echo\"}"))
			.statusCode()).isEqualTo(200);

		Map<String, Integer> keys = cluster.keys(RedisSessionKeys.PREFIX + "*");
		Map<String, Set<String>> bySession = keys.keySet()
			.stream()
			.collect(Collectors.groupingBy(key -> key.substring(0, key.indexOf('}') + 1), Collectors.toSet()));
		assertThat(bySession.values()).as("a session that searched has its caller and its tools")
			.anySatisfy(one -> assertThat(one).anyMatch(key -> key.endsWith("}:tools")).hasSize(2));
		bySession.forEach((tag, itsKeys) -> assertThat(itsKeys.stream().map(keys::get).distinct())
			.as("the master that holds each key of " + tag).hasSize(1));
	}

}
