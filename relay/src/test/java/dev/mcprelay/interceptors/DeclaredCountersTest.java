package dev.mcprelay.interceptors;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.BoundProperties;
import dev.mcprelay.upstream.UpstreamTokens;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import reactor.core.publisher.Mono;

/**
 * The failure counters an alert watches are exported at 0 from start-up, for every rule and server the configuration
 * names: a counter that first appears at its first increment shows Prometheus no increase for it.
 */
class DeclaredCountersTest {

	@Test
	void rateLimitStoreErrorsStartAtZeroPerRuleWithTheSharedStore() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		new RateLimitPolicy(BoundProperties.of(Map.of("servers.a.url", "http://127.0.0.1:1/mcp", "sessions.store", "redis",
				"rate-limits[0].name", "per-client", "rate-limits[0].limit", "10", "rate-limits[0].period", "1m",
				"rate-limits[1].name", "strict", "rate-limits[1].limit", "1", "rate-limits[1].period", "1s")),
				(key, configuration, deadline) -> Mono.empty(), registry);

		assertThat(registry.find(RelayMeters.RATE_LIMIT_STORE_ERRORS).counters())
			.extracting(counter -> counter.getId().getTag(RelayMeters.RULE) + "=" + counter.count())
			.containsExactlyInAnyOrder("per-client=0.0", "strict=0.0");
	}

	@Test
	void upstreamTokenFailuresStartAtZeroPerServerAndReason() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		new LiveConfiguration(BoundProperties.of(Map.of("servers.github.url", "http://127.0.0.1:1/mcp",
				"servers.github.oauth2.token-uri", "http://127.0.0.1:2/token", "servers.github.oauth2.client-id", "relay",
				"servers.github.oauth2.client-secret", "s", "servers.plain.url", "http://127.0.0.1:3/mcp",
				"security.mode", "none")),
				new MockEnvironment(), List.of(new UpstreamTokens(registry)));

		assertThat(registry.find("mcp.relay.upstream.auth.failures").counters())
			.extracting(counter -> counter.getId().getTag("server") + "/" + counter.getId().getTag("reason") + "="
					+ counter.count())
			.containsExactlyInAnyOrder("github/refused=0.0", "github/unavailable=0.0");
	}

}
