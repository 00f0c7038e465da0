package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RedisSentinelProcesses;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Review 45h H-2: a relay cut off from every Sentinel during a graceful failover had its store's connections
 * reconnected by Lettuce to the last address it knew, the old master, which the Sentinels had demoted: every write
 * failed {@code READONLY} for minutes after the Sentinels were reachable again (until the next failover), with
 * readiness 200. Here both relays' paths to the Sentinels are cut across a failover; while they are, the store's health
 * lists {@code writes} (the store answered {@code READONLY}) and the relays stay ready, as in a Redis outage (review
 * 45i I-3: both used to turn unready at once, leaving a load balancer none); once the Sentinels answer again (their
 * subscriptions still refused, the channels revoked, so only a {@code READONLY} answer can make them move), each relay
 * moves its connections to the new master within seconds and sessions are answered 200 again. In the longer tier
 * ({@code -Pscale}).
 */
@Tag("scale")
class ReadOnlyOldMasterTest {

	private static final String PASSWORD = "RelaySentinelPw-45i-readonly";

	static ProxiedSentinels redis;

	static TwoRelaysOverRedis relays;

	@BeforeAll
	static void start() throws Exception {
		RedisSentinelProcesses sentinel = RedisSentinelProcesses.start();
		sentinel.addSentinelUser("relay", PASSWORD, "~*", "+@all", "&*");
		redis = new ProxiedSentinels(sentinel);
		relays = TwoRelaysOverRedis.over(redis, "--spring.data.redis.sentinel.username=relay",
				"--spring.data.redis.sentinel.password=" + PASSWORD,
				"--mcp-relay.servers.alpha.url=" + TestUpstreams.SDK.url("/stateless"),
				"--mcp-relay.virtual-servers.all.members=alpha").awaitReady();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relays != null) {
			relays.close();
		}
	}

	@Test
	void aRelayLeftOnTheDemotedOldMasterMovesOnceItsWritesAreRefused() throws Exception {
		List<ConfigurableApplicationContext> both = List.of(relays.first(), relays.second());
		Awaitility.await("both relays follow every Sentinel").atMost(Duration.ofSeconds(90))
			.until(() -> both.stream().allMatch(relay -> relay.getBean(FollowedSentinels.class).count() == 3));
		FailoverTraffic traffic = FailoverTraffic.start(relays);
		traffic.awaitSessions(5);

		redis.cutAll();
		int old = redis.sentinel.failover(0);
		int promoted = redis.sentinel.awaitFailoverFrom(old);
		redis.sentinel.awaitDemoted(old);
		// once reachable again, the Sentinels refuse the relays' subscriptions: only a READONLY answer moves them
		redis.sentinel.addSentinelUser("relay", PASSWORD, "resetchannels");
		Awaitility.await("both relays' stores refuse writes").atMost(Duration.ofSeconds(60))
			.until(() -> both.stream().allMatch(relay -> refusingWrites(health(relay))));
		Health stuck = health(relays.first());
		assertThat(stuck.getStatus()).as("ready while no Sentinel can be asked, as in a Redis outage")
			.isEqualTo(Status.UP);
		assertThat(((Map<?, ?>) stuck.getDetails().get("reasons")).get("writes").toString()).contains("READONLY");

		int mark = CapturedLogs.all().size();
		long back = System.nanoTime();
		redis.passAll();
		int before = traffic.confirmedCount();
		traffic.awaitSessions(before + 10);
		long recovered = System.nanoTime();
		traffic.stop();
		Awaitility.await("both relays ready again").atMost(Duration.ofSeconds(30))
			.until(() -> both.stream().allMatch(relay -> health(relay).getStatus().equals(Status.UP)));

		List<String> logged = CapturedLogs.since(mark);
		System.out.printf("relays left on the demoted old master: 10 sessions answered 200 again %d ms after the "
				+ "Sentinels were reachable; %s%n", TimeUnit.NANOSECONDS.toMillis(recovered - back),
				logged.stream().filter(line -> line.contains("MasterCatchUp")).toList());
		assertThat(logged).as("each relay moved to the new master once the store refused a write")
			.filteredOn(line -> line.contains("The Sentinels name 127.0.0.1:" + promoted)
					&& line.contains("the store refused a write"))
			.hasSize(2);
		assertThat(traffic.confirmed().subList(traffic.confirmed().size() - 10, traffic.confirmed().size()))
			.as("the last sessions are known to both relays")
			.allMatch(session -> !traffic.lost().contains(session));
	}

	private static Health health(ConfigurableApplicationContext relay) {
		return relay.getBean(RelayStoreHealth.class).health().block(Duration.ofSeconds(30));
	}

	private static boolean refusingWrites(Health health) {
		return health.getDetails().get("unavailable") instanceof List<?> parts && parts.contains("writes");
	}

}
