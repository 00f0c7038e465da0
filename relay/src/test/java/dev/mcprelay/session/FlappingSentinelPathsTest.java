package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RedisSentinelProcesses;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Review 45h H-1: after a minute of flapping paths to the Sentinels (cut 1 s, restored 1 s), a relay stayed
 * unsubscribed from Sentinels that were back for up to 30 s (its backoff started from 1 s again only after a
 * subscription that lasted a minute), silently, missed the promotion of a failover in that window and lost the
 * sessions it wrote to the old master. Here every path of both relays flaps for 40 s; once the paths are good, each
 * relay follows every Sentinel again within a few seconds (a Sentinel that cannot be reached is tried again every 4 s
 * at most), and a graceful failover then is held and followed by both, with no session lost. Following no Sentinel is
 * logged. In the longer tier ({@code -Pscale}).
 */
@Tag("scale")
class FlappingSentinelPathsTest {

	private static final String PASSWORD = "RelaySentinelPw-45i-flap";

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
	void aRelayFollowsTheSentinelsAgainSoonAfterFlappingPathsAndFollowsTheNextFailover() throws Exception {
		awaitFollowingAll(Duration.ofSeconds(90));
		int mark = CapturedLogs.all().size();
		for (int flap = 0; flap < 20; flap++) {
			redis.cutAll();
			Thread.sleep(1000);
			redis.passAll();
			Thread.sleep(1000);
		}
		long good = System.nanoTime();
		assertThat(CapturedLogs.since(mark)).as("each relay said it followed no Sentinel")
			.filteredOn(line -> line.startsWith("WARN ") && line.contains("follows no Sentinel now"))
			.hasSizeGreaterThanOrEqualTo(2);
		// a Sentinel that cannot be reached is tried again every 4 s at most (plus up to half as much): the relays used
		// to wait up to 30 s
		awaitFollowingAll(Duration.ofSeconds(15));
		System.out.printf("after 40 s of flapping paths, both relays followed every Sentinel again %d ms after the paths "
				+ "were good%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - good));

		FailoverTraffic traffic = FailoverTraffic.start(relays);
		traffic.awaitSessions(10);
		int failoverMark = CapturedLogs.all().size();
		int old = redis.sentinel.failover(1);
		redis.sentinel.awaitFailoverFrom(old);
		redis.sentinel.awaitDemoted(old);
		traffic.awaitSessions(traffic.confirmedCount() + 10);
		traffic.stop();

		List<String> logged = CapturedLogs.since(failoverMark);
		List<String> lost = traffic.lost();
		System.out.printf("failover after flapping paths: %d sessions answered 200, %d lost, %d refused: %s%n",
				traffic.confirmed().size(), lost.size(), traffic.refused().size(),
				traffic.refused().stream().distinct().toList());
		assertThat(logged).as("each relay held the store for the promotion")
			.filteredOn(line -> line.contains("The Sentinels are promoting a replica of")).hasSize(2);
		assertThat(lost).as("sessions answered 200 but gone after the failover, of %d", traffic.confirmed().size())
			.isEmpty();
	}

	private static void awaitFollowingAll(Duration within) {
		List<FollowedSentinels> followed = List.of(relays.first().getBean(FollowedSentinels.class),
				relays.second().getBean(FollowedSentinels.class));
		Awaitility.await("both relays follow every Sentinel").atMost(within)
			.pollInterval(Duration.ofMillis(100))
			.until(() -> followed.stream().allMatch(each -> each.count() == 3));
	}

}
