package dev.mcprelay.testsupport;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;

/**
 * Two replicas of the relay over one real Redis server ({@code sessions.store: redis}), on 127.0.0.1, each with its
 * own event loops, for tests of state shared between replicas. Closes the relays, then Redis.
 */
public final class TwoRelaysOverRedis implements AutoCloseable {

	private final RedisServerProcess redis;

	private final ConfigurableApplicationContext first;

	private final ConfigurableApplicationContext second;

	private TwoRelaysOverRedis(RedisServerProcess redis, ConfigurableApplicationContext first,
			ConfigurableApplicationContext second) {
		this.redis = redis;
		this.first = first;
		this.second = second;
	}

	/** Starts Redis, then two relays with {@code args} (their servers and features) on top of the shared settings. */
	public static TwoRelaysOverRedis start(String... args) throws Exception {
		RedisServerProcess redis = RedisServerProcess.start();
		List<String> all = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
				"--mcp-relay.security.mode=none", "--mcp-relay.sessions.store=redis",
				"--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redis.port()));
		all.addAll(List.of(args));
		String[] relayArgs = all.toArray(String[]::new);
		ConfigurableApplicationContext first = relay(relayArgs);
		return new TwoRelaysOverRedis(redis, first, relay(relayArgs));
	}

	public ConfigurableApplicationContext first() {
		return first;
	}

	public ConfigurableApplicationContext second() {
		return second;
	}

	public RedisServerProcess redis() {
		return redis;
	}

	/** The port a relay listens on. */
	public static int port(ConfigurableApplicationContext relay) {
		return ((WebServerApplicationContext) relay).getWebServer().getPort();
	}

	@Override
	public void close() throws Exception {
		first.close();
		second.close();
		redis.close();
	}

	private static ConfigurableApplicationContext relay(String[] args) {
		return new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class).run(args);
	}

}
