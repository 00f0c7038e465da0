package dev.mcprelay.testsupport;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.awaitility.Awaitility;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;

/**
 * Two replicas of the relay over one real Redis ({@code sessions.store: redis}): one server, or any
 * {@link SharedRedis} deployment (Sentinel, Cluster) pointed at with {@code spring.data.redis.*} alone; on 127.0.0.1,
 * each with its own event loops, for tests of state shared between replicas. Closes the relays, then Redis.
 */
public final class TwoRelaysOverRedis implements AutoCloseable {

	private final SharedRedis redis;

	private final ConfigurableApplicationContext first;

	private final ConfigurableApplicationContext second;

	private TwoRelaysOverRedis(SharedRedis redis, ConfigurableApplicationContext first,
			ConfigurableApplicationContext second) {
		this.redis = redis;
		this.first = first;
		this.second = second;
	}

	/** Starts Redis, then two relays with {@code args} (their servers and features) on top of the shared settings. */
	public static TwoRelaysOverRedis start(String... args) throws Exception {
		return over(RedisServerProcess.start(), args);
	}

	/**
	 * Starts two relays over {@code redis} with {@code args} (their servers and features; the security mode is
	 * {@code none} unless they say otherwise); closing them closes {@code redis} too, as does a relay that fails to
	 * start.
	 */
	public static TwoRelaysOverRedis over(SharedRedis redis, String... args) throws Exception {
		List<String> all = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
				"--mcp-relay.sessions.store=redis"));
		if (Stream.of(args).noneMatch(arg -> arg.startsWith("--mcp-relay.security.mode="))) {
			// a property given twice on the command line would be both values, joined by a comma
			all.add("--mcp-relay.security.mode=none");
		}
		all.addAll(redis.relayArguments());
		all.addAll(List.of(args));
		String[] relayArgs = all.toArray(String[]::new);
		ConfigurableApplicationContext first = null;
		try {
			first = relay(relayArgs);
			return new TwoRelaysOverRedis(redis, first, relay(relayArgs));
		}
		catch (RuntimeException failed) {
			if (first != null) {
				first.close();
			}
			redis.close();
			throw failed;
		}
	}

	public ConfigurableApplicationContext first() {
		return first;
	}

	public ConfigurableApplicationContext second() {
		return second;
	}

	/** The one Redis server, for tests over a standalone server ({@link #start}) that stop it. */
	public RedisServerProcess redis() {
		return (RedisServerProcess) redis;
	}

	/** The Redis deployment the relays share. */
	public SharedRedis store() {
		return redis;
	}

	/**
	 * Waits until both relays are ready ({@code /actuator/health/readiness} 200: their connections to Redis are open
	 * and answer), as a load balancer would before sending them traffic; returns them.
	 */
	public TwoRelaysOverRedis awaitReady() {
		for (ConfigurableApplicationContext relay : List.of(first, second)) {
			awaitReady(relay);
		}
		return this;
	}

	/**
	 * Waits until {@code relay} is ready ({@code /actuator/health/readiness} 200: its connections to the shared store,
	 * if it uses one, are open and answer), as a load balancer would before sending it traffic.
	 */
	public static void awaitReady(ConfigurableApplicationContext relay) {
		HttpClient client = HttpClient.newHttpClient();
		HttpRequest readiness = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(relay)
				+ "/actuator/health/readiness")).timeout(Duration.ofSeconds(10)).build();
		Awaitility.await("readiness of the relay on port " + port(relay))
			.atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(100))
			// a probe that is not answered in time counts as not ready, as a load balancer counts it, and is sent again
			.ignoreExceptionsInstanceOf(IOException.class)
			.until(() -> client.send(readiness, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
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
