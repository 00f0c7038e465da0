package dev.mcprelay.session;

import java.util.Locale;
import java.util.stream.Collectors;

import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * How the shared store's Redis runs, as Spring Data Redis's own properties configured it: one server
 * ({@code spring.data.redis.host} and {@code port}, or {@code url}), a master found through Sentinel
 * ({@code spring.data.redis.sentinel.master} and {@code nodes}), or a Cluster ({@code spring.data.redis.cluster.nodes}).
 * Named in the store's health ({@code topology}) and in what an operator is told to check when Redis cannot be used.
 */
enum RedisTopology {

	STANDALONE("spring.data.redis.host and port (or url)"),

	SENTINEL("spring.data.redis.sentinel.nodes and master"),

	CLUSTER("spring.data.redis.cluster.nodes");

	private final String properties;

	RedisTopology(String properties) {
		this.properties = properties;
	}

	/** The topology of {@code factory}'s configuration; standalone when there is none to look at. */
	static RedisTopology of(LettuceConnectionFactory factory) {
		if (factory == null) {
			return STANDALONE;
		}
		if (factory.getSentinelConfiguration() != null) {
			return SENTINEL;
		}
		if (factory.getClusterConfiguration() != null) {
			return CLUSTER;
		}
		return STANDALONE;
	}

	/** The properties that say where this Redis is, for a message that tells what to check. */
	String properties() {
		return properties;
	}

	/** Its name in the store's health: {@code standalone}, {@code sentinel} or {@code cluster}. */
	String detail() {
		return name().toLowerCase(Locale.ROOT);
	}

	/**
	 * Where {@code factory}'s Redis is, for a log line an operator reads (addresses, a Sentinel master's name; never a
	 * password).
	 */
	static String address(LettuceConnectionFactory factory) {
		if (factory == null) {
			return "Redis";
		}
		return switch (of(factory)) {
			case SENTINEL -> "Redis master '" + factory.getSentinelConfiguration().getRequiredMaster().getName()
					+ "' through Sentinel at " + nodes(factory.getSentinelConfiguration().getSentinels());
			case CLUSTER -> "Redis Cluster at " + nodes(factory.getClusterConfiguration().getClusterNodes());
			case STANDALONE -> "Redis at " + factory.getStandaloneConfiguration().getHostName() + ":"
					+ factory.getStandaloneConfiguration().getPort();
		};
	}

	private static String nodes(Iterable<RedisNode> nodes) {
		return java.util.stream.StreamSupport.stream(nodes.spliterator(), false)
			.map(node -> node.getHost() + ":" + node.getPort())
			.collect(Collectors.joining(","));
	}

}
