package dev.mcprelay.interceptors;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Two relays over one real Redis server ({@code sessions.store: redis}) share one rate-limit budget: what one spends
 * the other cannot; and when Redis goes away both keep serving (limits fail open), counting the failed checks.
 */
class SharedRateLimitTest {

	static TwoRelaysOverRedis relays;

	@BeforeAll
	static void start() throws Exception {
		relays = TwoRelaysOverRedis.start("--mcp-relay.servers.sdk-json.url=" + TestUpstreams.SDK.url("/stateless"),
				"--mcp-relay.rate-limits[0].name=shared", "--mcp-relay.rate-limits[0].per=server",
				"--mcp-relay.rate-limits[0].limit=3", "--mcp-relay.rate-limits[0].period=1h");
	}

	@AfterAll
	static void stop() throws Exception {
		if (relays != null) {
			relays.close();
		}
	}

	@Test
	void twoRelaysShareOneBudgetAndServeOnWhenRedisIsAway() throws Exception {
		assertThat(call(relays.first(), 1).statusCode()).isEqualTo(200);
		assertThat(call(relays.second(), 2).statusCode()).isEqualTo(200);
		assertThat(call(relays.first(), 3).statusCode()).isEqualTo(200);

		HttpResponse<String> limited = call(relays.second(), 4);
		assertThat(limited.statusCode()).as("the budget of 3 was spent across both relays").isEqualTo(429);
		assertThat(RawHttp.json(limited.body()).at("/error/data/reason").asText()).isEqualTo("rate_limited");
		assertThat(call(relays.first(), 5).statusCode()).isEqualTo(429);

		relays.redis().kill();
		assertThat(call(relays.first(), 6).statusCode()).as("no Redis: let through").isEqualTo(200);
		assertThat(call(relays.second(), 7).statusCode()).isEqualTo(200);
		Counter errors = relays.first().getBean(MeterRegistry.class).find(RelayMeters.RATE_LIMIT_STORE_ERRORS).counter();
		assertThat(errors).isNotNull();
		assertThat(errors.count()).isPositive();
	}

	private static HttpResponse<String> call(ConfigurableApplicationContext relay, int id) {
		RawHttp http = new RawHttp(TwoRelaysOverRedis.port(relay));
		return http.send(http.post("sdk-json", RawHttp.toolsCall(id, "echo")));
	}

}
