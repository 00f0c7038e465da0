package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.CuttablePathProxy;
import dev.mcprelay.testsupport.RedisSentinelProcesses;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.SharedRedis;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Review 45i I-4: a Sentinel with a stale view (it missed the failovers), listed first, moved a relay that was on the
 * right master to the master it named whenever one of the relay's subscriptions was taken again, and "moved" again
 * every 2 s, with readiness 200. Here, after a failover, a fourth Sentinel that never reaches Redis (its only path to
 * its master is cut; quorum 2, so it never fails anything over alone) still names the master it was configured with,
 * at an older configuration epoch. It is listed first; the relays start while their path to it is cut (so their
 * connections go to the master the three others name), then it takes their subscriptions, three times: each time the
 * relays ask, weigh its answer against the others' and stay where they are; sessions are answered 200 and both relays
 * stay ready. In the longer tier ({@code -Pscale}).
 */
@Tag("scale")
class StaleSentinelListedFirstTest {

	static RedisSentinelProcesses sentinel;

	static CuttablePathProxy staleMastersPath;

	static RedisServerProcess stale;

	static CuttablePathProxy stalePath;

	static TwoRelaysOverRedis relays;

	static int promoted;

	@BeforeAll
	static void start() throws Exception {
		sentinel = RedisSentinelProcesses.start();
		int old = sentinel.failover(0);
		promoted = sentinel.awaitFailoverFrom(old);
		sentinel.awaitDemoted(old);
		staleMastersPath = new CuttablePathProxy(old);
		staleMastersPath.cut();
		int port = TestUpstreams.freePort();
		Path dir = Files.createDirectories(Path.of("target", "redis-sentinel-stale-" + port).toAbsolutePath());
		Path config = dir.resolve("sentinel.conf");
		Files.writeString(config, String.join("\n", "dir " + dir,
				"sentinel monitor " + RedisSentinelProcesses.MASTER + " 127.0.0.1 " + staleMastersPath.port() + " 2",
				"sentinel down-after-milliseconds " + RedisSentinelProcesses.MASTER + " 2000",
				"sentinel failover-timeout " + RedisSentinelProcesses.MASTER + " 10000", ""));
		stale = RedisServerProcess.startSentinel(port, config);
		stalePath = new CuttablePathProxy(port);
		stalePath.cut();
		relays = TwoRelaysOverRedis.over(new StaleFirst(),
				"--mcp-relay.servers.alpha.url=" + TestUpstreams.SDK.url("/stateless"),
				"--mcp-relay.virtual-servers.all.members=alpha").awaitReady();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relays != null) {
			relays.close();
		}
		else {
			new StaleFirst().close();
		}
	}

	@Test
	void aStaleSentinelListedFirstDoesNotMoveARelayOffTheMaster() throws Exception {
		List<ConfigurableApplicationContext> both = List.of(relays.first(), relays.second());
		Awaitility.await("both relays follow the three Sentinels with the latest view").atMost(Duration.ofSeconds(90))
			.until(() -> both.stream().allMatch(relay -> relay.getBean(FollowedSentinels.class).count() == 3));
		FailoverTraffic traffic = FailoverTraffic.start(relays);
		traffic.awaitSessions(5);

		int mark = CapturedLogs.all().size();
		// refusals before this point are the relays' warm-up, not this test's business
		int refusedBefore = traffic.refused().size();
		for (int taken = 0; taken < 3; taken++) {
			stalePath.pass();
			Awaitility.await("the stale Sentinel takes both relays' subscriptions").atMost(Duration.ofSeconds(60))
				.until(() -> both.stream().allMatch(relay -> relay.getBean(FollowedSentinels.class).count() == 4));
			Awaitility.await("both relays asked the Sentinels").atMost(Duration.ofSeconds(60))
				.until(() -> CapturedLogs.since(mark).stream().filter(line -> line.contains("MasterEvidence")
						&& line.contains("127.0.0.1:" + staleMastersPath.port() + " the master")).count() >= 2);
			int before = traffic.confirmedCount();
			traffic.awaitSessions(before + 5);
			stalePath.cut();
			Awaitility.await("the stale Sentinel's subscriptions lost").atMost(Duration.ofSeconds(60))
				.until(() -> both.stream().allMatch(relay -> relay.getBean(FollowedSentinels.class).count() == 3));
		}
		int before = traffic.confirmedCount();
		traffic.awaitSessions(before + 5);
		traffic.stop();

		List<String> logged = CapturedLogs.since(mark);
		System.out.printf("a stale Sentinel listed first took the relays' subscriptions 3 times: %s%n",
				logged.stream().filter(line -> line.contains("MasterEvidence")).toList());
		assertThat(logged).as("no move").noneMatch(line -> line.contains("now go there"));
		assertThat(logged).as("the stale answer outweighed, said once per relay")
			.filteredOn(line -> line.contains("MasterEvidence") && line.contains("names 127.0.0.1:"
					+ staleMastersPath.port() + " the master") && line.contains("names 127.0.0.1:" + promoted))
			.hasSize(2);
		for (ConfigurableApplicationContext relay : both) {
			Health health = relay.getBean(RelayStoreHealth.class).health().block(Duration.ofSeconds(30));
			assertThat(health.getStatus()).as(String.valueOf(health.getDetails())).isEqualTo(Status.UP);
			assertThat(relay.getBean(SentinelMasterSwitches.class).refusingWrites()).isNull();
		}
		assertThat(traffic.refused().subList(refusedBefore, traffic.refused().size()))
			.as("sessions refused while the stale Sentinel was followed").isEmpty();
		assertThat(traffic.lost()).as("sessions lost").isEmpty();
	}

	/** The deployment's Sentinels, the stale one listed first; closing it closes them all. */
	private static final class StaleFirst implements SharedRedis {

		@Override
		public String topology() {
			return "sentinel";
		}

		@Override
		public List<String> relayArguments() {
			return List.of("--spring.data.redis.sentinel.master=" + RedisSentinelProcesses.MASTER,
					"--spring.data.redis.sentinel.nodes=" + Stream.concat(Stream.of(stalePath.port()),
							Stream.of(0, 1, 2).map(sentinel::sentinelPort))
						.map(port -> "127.0.0.1:" + port)
						.collect(Collectors.joining(",")));
		}

		@Override
		public void close() throws Exception {
			if (stalePath != null) {
				stalePath.close();
			}
			if (stale != null) {
				stale.close();
			}
			if (staleMastersPath != null) {
				staleMastersPath.close();
			}
			if (sentinel != null) {
				sentinel.close();
			}
		}

	}

}
