package dev.mcprelay.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.BoundProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The front door's refusals are counted from 0 for every reason its mode gives, before the first one: in jwt mode a
 * token that names no caller ({@code missing_client_claim}) and a caller not let into the management endpoints
 * ({@code management_not_allowed}) too, which appeared only at their first refusal ({@code MonitoringAssetsTest}
 * proves the api-key mode's against a running relay).
 */
class DeclaredCountersTest {

	@Test
	void everyReasonOfTheJwtFrontDoorIsCountedFromZero() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		new DeclaredCounters(BoundProperties.of(Map.of("servers.a.url", "http://127.0.0.1:1/mcp", "security.mode", "jwt",
				"security.jwt.jwk-set-uri", "http://127.0.0.1:1/jwks", "security.jwt.audience", "mcp-relay")), registry);

		assertThat(registry.find(RelayMeters.AUTH_FAILURES).tag(RelayMeters.SERVER, "a").counters())
			.extracting(counter -> counter.getId().getTag(RelayMeters.REASON))
			.containsExactlyInAnyOrderElementsOf(DeclaredCounters.JWT_REASONS)
			.contains("missing_client_claim", "management_not_allowed", "invalid_token", "insufficient_scope");
		assertThat(registry.find(RelayMeters.AUTH_FAILURES).counters()).allMatch(counter -> counter.count() == 0);
	}

}
