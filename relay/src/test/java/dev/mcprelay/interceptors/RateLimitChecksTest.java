package dev.mcprelay.interceptors;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.Caller;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.test.InterceptorTestKit;
import dev.mcprelay.test.TestResult;
import dev.mcprelay.testsupport.BoundProperties;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import reactor.core.publisher.Mono;

/**
 * The rules a request matches are asked one after the other, the narrowest budget first (per client, per server,
 * global; configuration order among equals), up to the first that refuses: a rule after it is never asked (its budget,
 * which other callers may share, is not touched by a request refused anyway), the tokens the rules before it took are
 * given back before the request is answered, within a bound of their own ({@link RateLimitPolicy#REFUND_BOUND}), and a
 * store that hangs costs the whole check one bound ({@link RateLimitPolicy#CHECK_BOUND}), not one per rule.
 */
class RateLimitChecksTest {

	private static final RelayProperties TWO_RULES = BoundProperties.of(Map.of("servers.s.url", "http://127.0.0.1:1/mcp",
			"servers.t.url", "http://127.0.0.1:2/mcp",
			"rate-limits[0].name", "strict", "rate-limits[0].match.server", "s", "rate-limits[0].limit", "1",
			"rate-limits[0].period", "1h", "rate-limits[1].name", "roomy", "rate-limits[1].limit", "3",
			"rate-limits[1].period", "1h"));

	/** The same rules, the roomy one first. */
	private static final RelayProperties ROOMY_FIRST = BoundProperties.of(Map.of("servers.s.url", "http://127.0.0.1:1/mcp",
			"rate-limits[0].name", "roomy", "rate-limits[0].limit", "3", "rate-limits[0].period", "1h",
			"rate-limits[1].name", "strict", "rate-limits[1].match.server", "s", "rate-limits[1].limit", "1",
			"rate-limits[1].period", "1h"));

	private static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}";

	private final InterceptorTestKit kit = InterceptorTestKit.forServer("s")
		.caller(Caller.token("alice", Set.of(), Map.of()))
		.timeout(Duration.ofSeconds(10));

	@Test
	void aRuleAfterTheOneThatRefusesIsNeverAsked() {
		LocalRateLimitBuckets local = new LocalRateLimitBuckets(Duration.ofHours(1));
		List<String> asked = new CopyOnWriteArrayList<>();
		RateLimitBuckets recorded = (key, configuration, deadline) -> {
			asked.add(key.split("\\|")[0]);
			return local.tryConsume(key, configuration, deadline);
		};
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		RateLimitPolicy policy = new RateLimitPolicy(TWO_RULES, recorded, registry);

		assertThat(kit.userRequest(CALL).run(policy).proceeded()).isTrue();
		for (int i = 0; i < 3; i++) {
			TestResult refused = kit.userRequest(CALL).run(policy);
			assertThat(refused.rejected()).isTrue();
			assertThat(refused.error().data().path("rule").asText()).isEqualTo("strict");
		}

		assertThat(asked).as("both rules for the request let through; then only strict, which refused three")
			.containsExactly("strict", "roomy", "strict", "strict", "strict");
		RateLimitRule roomy = new RateLimitRule(TWO_RULES.rateLimits().get(1), 1);
		ConsumptionProbe probe = local.tryConsume(roomy.key("s", "JWT:alice"), roomy.bucket(), deadline()).block();
		assertThat(probe.getRemainingTokens()).as("roomy: 3, less the request let through and this one").isEqualTo(1);
		assertThat(registry.find(RelayMeters.RATE_LIMIT_REJECTIONS).counters())
			.extracting(counter -> counter.getId().getTag(RelayMeters.RULE) + "/" + counter.getId().getTag(RelayMeters.SERVER)
					+ "=" + counter.count())
			.as("counted under the rule named, and declared at 0 for every rule and server it counts")
			.containsExactlyInAnyOrder("strict/s=3.0", "roomy/s=0.0", "roomy/t=0.0");
	}

	@Test
	void theTokensOfTheRulesBeforeTheOneThatRefusesAreBackBeforeTheAnswer() {
		LocalRateLimitBuckets local = new LocalRateLimitBuckets(Duration.ofHours(1));
		AtomicBoolean givenBack = new AtomicBoolean();
		RateLimitBuckets slowRefunds = new RateLimitBuckets() {

			@Override
			public Mono<ConsumptionProbe> tryConsume(String key, BucketConfiguration configuration,
					CheckDeadline deadline) {
				return local.tryConsume(key, configuration, deadline);
			}

			@Override
			public Mono<Void> refund(String key, BucketConfiguration configuration, CheckDeadline deadline) {
				// a store's round trip: the answer must wait for it
				return Mono.delay(Duration.ofMillis(200))
					.then(local.refund(key, configuration, deadline))
					.doOnSuccess(done -> givenBack.set(true));
			}

		};
		RateLimitPolicy policy = new RateLimitPolicy(ROOMY_FIRST, slowRefunds, new SimpleMeterRegistry());

		assertThat(kit.userRequest(CALL).run(policy).proceeded()).isTrue();
		TestResult refused = kit.userRequest(CALL).run(policy);

		assertThat(refused.rejected()).isTrue();
		assertThat(refused.error().data().path("rule").asText()).isEqualTo("strict");
		assertThat(givenBack).as("roomy's token given back before the refusal was answered").isTrue();
		RateLimitRule roomy = new RateLimitRule(ROOMY_FIRST.rateLimits().get(0), 0);
		assertThat(local.tryConsume(roomy.key("s", "JWT:alice"), roomy.bucket(), deadline()).block()
			.getRemainingTokens()).as("roomy: 3, less the request let through and this one").isEqualTo(1);
	}

	@Test
	void aCallerPastItsOwnLimitTakesNothingFromTheSharedOneWhateverTheirOrder() {
		// the shared rule written first: asked first, it would hold a token of the budget every caller shares for each
		// request of a caller past its own limit until that token is given back (steal.py, 40 threads of one key)
		Map<String, String> rules = new java.util.HashMap<>(Map.of("servers.s.url", "http://127.0.0.1:1/mcp",
				"rate-limits[0].name", "global", "rate-limits[0].per", "global", "rate-limits[0].limit", "60",
				"rate-limits[0].period", "1h", "rate-limits[1].name", "per-server", "rate-limits[1].per", "server",
				"rate-limits[1].limit", "50", "rate-limits[1].period", "1h"));
		rules.putAll(Map.of("rate-limits[2].name", "per-client", "rate-limits[2].limit", "1", "rate-limits[2].period", "1h"));
		RelayProperties globalFirst = BoundProperties.of(rules);
		LocalRateLimitBuckets local = new LocalRateLimitBuckets(Duration.ofHours(1));
		List<String> asked = new CopyOnWriteArrayList<>();
		RateLimitBuckets recorded = (key, configuration, deadline) -> {
			asked.add(key.split("\\|")[0]);
			return local.tryConsume(key, configuration, deadline);
		};
		RateLimitPolicy policy = new RateLimitPolicy(globalFirst, recorded, new SimpleMeterRegistry());

		assertThat(kit.userRequest(CALL).run(policy).proceeded()).isTrue();
		TestResult refused = kit.userRequest(CALL).run(policy);

		assertThat(refused.error().data().path("rule").asText()).isEqualTo("per-client");
		assertThat(asked).as("the caller's own rule first, then the server's, then the global one; past its own "
				+ "limit, nothing shared is asked").containsExactly("per-client", "per-server", "global", "per-client");
	}

	@Test
	void aTokenIsGivenBackEvenWhenTheCheckUsedItsWholeBound() {
		LocalRateLimitBuckets local = new LocalRateLimitBuckets(Duration.ofHours(1));
		List<Duration> refundTime = new CopyOnWriteArrayList<>();
		RateLimitBuckets slowStore = new RateLimitBuckets() {

			@Override
			public Mono<ConsumptionProbe> tryConsume(String key, BucketConfiguration configuration,
					CheckDeadline deadline) {
				// the store answers the last rule as the check's bound runs out
				Duration left = deadline.remaining();
				return key.startsWith("strict") ? Mono.delay(left).then(local.tryConsume(key, configuration, deadline))
						: local.tryConsume(key, configuration, deadline);
			}

			@Override
			public Mono<Void> refund(String key, BucketConfiguration configuration, CheckDeadline deadline) {
				refundTime.add(deadline.remaining());
				return local.refund(key, configuration, deadline);
			}

		};
		RateLimitPolicy policy = new RateLimitPolicy(ROOMY_FIRST, slowStore, new SimpleMeterRegistry());

		assertThat(kit.userRequest(CALL).run(policy).proceeded()).isTrue();
		assertThat(kit.userRequest(CALL).run(policy).rejected()).isTrue();

		assertThat(refundTime).as("the refund has a bound of its own, not what the check left").singleElement()
			.isEqualTo(RateLimitPolicy.REFUND_BOUND);
		RateLimitRule roomy = new RateLimitRule(ROOMY_FIRST.rateLimits().get(0), 0);
		assertThat(local.tryConsume(roomy.key("s", "JWT:alice"), roomy.bucket(), deadline()).block()
			.getRemainingTokens()).as("roomy: 3, less the request let through and this one").isEqualTo(1);
	}

	@Test
	void aStoreThatHangsCostsTheWholeCheckOneBound() {
		List<Duration> timeLeft = new CopyOnWriteArrayList<>();
		// as Redis is asked: with what is left of the deadline, or not at all when nothing is
		RateLimitBuckets hanging = (key, configuration, deadline) -> Mono.defer(() -> {
			Duration left = deadline.remaining();
			timeLeft.add(left);
			return left.isZero() ? Mono.error(new TimeoutException("no time left"))
					: Mono.<ConsumptionProbe>never().timeout(left);
		});
		RelayProperties threeRules = BoundProperties.of(Map.of("servers.s.url", "http://127.0.0.1:1/mcp",
				"rate-limits[0].name", "a", "rate-limits[0].limit", "5", "rate-limits[0].period", "1h",
				"rate-limits[1].name", "b", "rate-limits[1].limit", "5", "rate-limits[1].period", "1h",
				"rate-limits[2].name", "c", "rate-limits[2].limit", "5", "rate-limits[2].period", "1h"));

		TestResult result = kit.userRequest(CALL).run(new RateLimitPolicy(threeRules, hanging, new SimpleMeterRegistry()));

		assertThat(result.proceeded()).as("a store that cannot be reached lets requests through (fail-open)").isTrue();
		assertThat(timeLeft).as("the first rule waited for the whole bound; the others had nothing left").hasSize(3);
		assertThat(timeLeft.get(0)).isEqualTo(RateLimitPolicy.CHECK_BOUND);
		assertThat(timeLeft.subList(1, 3)).allMatch(Duration::isZero);
	}

	private static CheckDeadline deadline() {
		return new CheckDeadline(Duration.ofSeconds(1));
	}

}
