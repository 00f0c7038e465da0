package dev.mcprelay.interceptors;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.Caller;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.test.InterceptorTestKit;
import dev.mcprelay.test.TestResult;
import dev.mcprelay.testsupport.BoundProperties;
import io.github.bucket4j.ConsumptionProbe;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The rules a request matches are checked at once, not one after the other (a store that hangs costs a request one
 * check's bound, not one per rule); a request one rule refuses spends nothing of the others; and when several refuse,
 * the first in configuration order is named and counted.
 */
class RateLimitChecksTest {

	private static final RelayProperties TWO_RULES = BoundProperties.of(Map.of("servers.s.url", "http://127.0.0.1:1/mcp",
			"servers.t.url", "http://127.0.0.1:2/mcp",
			"rate-limits[0].name", "strict", "rate-limits[0].match.server", "s", "rate-limits[0].limit", "1",
			"rate-limits[0].period", "1h", "rate-limits[1].name", "roomy", "rate-limits[1].limit", "3",
			"rate-limits[1].period", "1h"));

	private static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}";

	private final InterceptorTestKit kit = InterceptorTestKit.forServer("s")
		.caller(Caller.token("alice", Set.of(), Map.of()))
		.timeout(Duration.ofSeconds(5));

	@Test
	void everyRuleIsCheckedAtOnce() {
		AtomicInteger started = new AtomicInteger();
		Sinks.Empty<Void> bothStarted = Sinks.empty();
		// a check answers only once both checks began: checked one after the other, the first would never answer
		RateLimitBuckets together = (key, configuration) -> {
			if (started.incrementAndGet() == 2) {
				bothStarted.tryEmitEmpty();
			}
			return bothStarted.asMono().then(Mono.fromSupplier(RateLimitChecksTest::consumed));
		};

		TestResult result = kit.userRequest(CALL).run(new RateLimitPolicy(TWO_RULES, together, new SimpleMeterRegistry()));

		assertThat(result.proceeded()).as("both rules had a token, and were asked at once").isTrue();
		assertThat(started).hasValue(2);
	}

	@Test
	void aRequestOneRuleRefusesSpendsNothingOfTheOthers() {
		LocalRateLimitBuckets buckets = new LocalRateLimitBuckets(Duration.ofHours(1));
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		RateLimitPolicy policy = new RateLimitPolicy(TWO_RULES, buckets, registry);

		assertThat(kit.userRequest(CALL).run(policy).proceeded()).isTrue();
		for (int i = 0; i < 3; i++) {
			TestResult refused = kit.userRequest(CALL).run(policy);
			assertThat(refused.rejected()).isTrue();
			assertThat(refused.error().data().path("rule").asText()).isEqualTo("strict");
		}

		RateLimitRule roomy = new RateLimitRule(TWO_RULES.rateLimits().get(1), 1);
		ConsumptionProbe probe = buckets.tryConsume(roomy.key("s", "JWT:alice"), roomy.bucket()).block();
		assertThat(probe.getRemainingTokens()).as("roomy: 3, less the request let through and this one; the three "
				+ "refused requests gave theirs back").isEqualTo(1);
		assertThat(registry.find(RelayMeters.RATE_LIMIT_REJECTIONS).counters())
			.extracting(counter -> counter.getId().getTag(RelayMeters.RULE) + "/" + counter.getId().getTag(RelayMeters.SERVER)
					+ "=" + counter.count())
			.as("counted under the rule named, and declared at 0 for every rule and server it counts")
			.containsExactlyInAnyOrder("strict/s=3.0", "roomy/s=0.0", "roomy/t=0.0");
	}

	private static ConsumptionProbe consumed() {
		return ConsumptionProbe.consumed(1, 0);
	}

}
