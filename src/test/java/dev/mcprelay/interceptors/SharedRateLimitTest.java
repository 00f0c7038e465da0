package dev.mcprelay.interceptors;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.TestUpstreams;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Two relays over one real Redis server ({@code sessions.store: redis}) share one rate-limit budget: what one spends
 * the other cannot; and when Redis goes away both keep serving (limits fail open), counting the failed checks.
 */
class SharedRateLimitTest {

	static RedisServerProcess redis;

	static ConfigurableApplicationContext first;

	static ConfigurableApplicationContext second;

	@BeforeAll
	static void start() throws Exception {
		redis = RedisServerProcess.start();
		first = relay();
		second = relay();
	}

	@AfterAll
	static void stop() throws Exception {
		if (first != null) {
			first.close();
		}
		if (second != null) {
			second.close();
		}
		if (redis != null) {
			redis.close();
		}
	}

	@Test
	void twoRelaysShareOneBudgetAndServeOnWhenRedisIsAway() throws Exception {
		assertThat(call(first, 1).statusCode()).isEqualTo(200);
		assertThat(call(second, 2).statusCode()).isEqualTo(200);
		assertThat(call(first, 3).statusCode()).isEqualTo(200);

		HttpResponse<String> limited = call(second, 4);
		assertThat(limited.statusCode()).as("the budget of 3 was spent across both relays").isEqualTo(429);
		assertThat(RawHttp.json(limited.body()).at("/error/data/reason").asText()).isEqualTo("rate_limited");
		assertThat(call(first, 5).statusCode()).isEqualTo(429);

		redis.kill();
		assertThat(call(first, 6).statusCode()).as("no Redis: let through").isEqualTo(200);
		assertThat(call(second, 7).statusCode()).isEqualTo(200);
		Counter errors = first.getBean(MeterRegistry.class).find(RelayMeters.RATE_LIMIT_STORE_ERRORS).counter();
		assertThat(errors).isNotNull();
		assertThat(errors.count()).isPositive();
	}

	private static HttpResponse<String> call(ConfigurableApplicationContext relay, int id) {
		int port = ((WebServerApplicationContext) relay).getWebServer().getPort();
		RawHttp http = new RawHttp(port);
		return http.send(http.post("sdk-json", RawHttp.toolsCall(id, "echo")));
	}

	private static ConfigurableApplicationContext relay() {
		return new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class).run("--server.port=0",
				"--server.address=127.0.0.1", "--mcp-relay.security.mode=none",
				"--mcp-relay.servers.sdk-json.url=" + TestUpstreams.SDK.url("/stateless"),
				"--mcp-relay.sessions.store=redis", "--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + redis.port(), "--mcp-relay.rate-limits[0].name=shared",
				"--mcp-relay.rate-limits[0].per=server", "--mcp-relay.rate-limits[0].limit=3",
				"--mcp-relay.rate-limits[0].period=1h");
	}

}
