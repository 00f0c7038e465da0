package dev.mcprelay.testsupport;

import java.util.List;

/**
 * A Redis deployment that relays share in a test, started from Debian's {@code redis-server} on 127.0.0.1: one server
 * ({@link RedisServerProcess}), a master with a replica watched by three Sentinels ({@link RedisSentinelProcesses}),
 * or a three-master Cluster ({@link RedisClusterProcesses}). A relay is pointed at it with Spring Data Redis's own
 * properties only, as an operator would. Closing it stops every process it started.
 */
public interface SharedRedis extends AutoCloseable {

	/** {@code standalone}, {@code sentinel} or {@code cluster}: what the relay's store health names it. */
	String topology();

	/** The {@code spring.data.redis.*} properties that point a relay at it, as command-line arguments. */
	List<String> relayArguments();

}
