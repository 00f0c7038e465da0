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
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.CuttablePathProxy;
import dev.mcprelay.testsupport.RedisSentinelProcesses;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.SharedRedis;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Review 45j J-4: with no failover at all, a relay on the right master whose only reachable Sentinel was stale moved
 * its store connections onto a replica on that one answer (one answer of one is "the latest configuration"), and was
 * unready 28 s, refusing every store request. Here, after a failover, a fourth Sentinel that never reaches Redis (its
 * path to its master cut; quorum 2) names the old master, now a replica, at an older epoch; it is listed last. The
 * relays start on the master the three others name; then their paths to those three are cut and the stale one takes
 * their subscriptions, three times: one answer of four configured Sentinels, while the master takes the relays'
 * writes, moves nothing (said once per relay), sessions are answered 200 throughout and both relays stay ready. In the
 * longer tier ({@code -Pscale}).
 */
@Tag("scale")
class OnlyAStaleSentinelReachableTest {

	static RedisSentinelProcesses sentinel;

	static List<CuttablePathProxy> paths;

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
		paths = Stream.of(0, 1, 2).map(index -> new CuttablePathProxy(sentinel.sentinelPort(index))).toList();
		staleMastersPath = new CuttablePathProxy(old);
		staleMastersPath.cut();
		int port = TestUpstreams.freePort();
		Path dir = Files.createDirectories(Path.of("target", "redis-sentinel-alone-" + port).toAbsolutePath());
		Path config = dir.resolve("sentinel.conf");
		Files.writeString(config, String.join("\n", "dir " + dir,
				"sentinel monitor " + RedisSentinelProcesses.MASTER + " 127.0.0.1 " + staleMastersPath.port() + " 2",
				"sentinel down-after-milliseconds " + RedisSentinelProcesses.MASTER + " 2000",
				"sentinel failover-timeout " + RedisSentinelProcesses.MASTER + " 10000", ""));
		stale = RedisServerProcess.startSentinel(port, config);
		stalePath = new CuttablePathProxy(port);
		stalePath.cut();
		relays = TwoRelaysOverRedis.over(new StaleLast(),
				"--mcp-relay.servers.alpha.url=" + TestUpstreams.SDK.url("/stateless"),
				"--mcp-relay.virtual-servers.all.members=alpha").awaitReady();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relays != null) {
			relays.close();
		}
		else {
			new StaleLast().close();
		}
	}

	@Test
	void theOnlyReachableSentinelStaleDoesNotMoveARelayOffTheMaster() throws Exception {
		List<ConfigurableApplicationContext> both = List.of(relays.first(), relays.second());
		Awaitility.await("both relays follow the three Sentinels with the latest view").atMost(Duration.ofSeconds(90))
			.until(() -> both.stream().allMatch(relay -> relay.getBean(FollowedSentinels.class).count() == 3));
		FailoverTraffic traffic = FailoverTraffic.start(relays);
		traffic.awaitSessions(5);

		int mark = CapturedLogs.all().size();
		int refusedBefore = traffic.refused().size();
		paths.forEach(CuttablePathProxy::cut);
		Awaitility.await("both relays follow no Sentinel").atMost(Duration.ofSeconds(60))
			.until(() -> both.stream().allMatch(relay -> relay.getBean(FollowedSentinels.class).count() == 0));
		for (int taken = 0; taken < 3; taken++) {
			stalePath.pass();
			Awaitility.await("the stale Sentinel takes both relays' subscriptions").atMost(Duration.ofSeconds(60))
				.until(() -> both.stream().allMatch(relay -> relay.getBean(FollowedSentinels.class).count() == 1));
			Awaitility.await("both relays weighed its answer").atMost(Duration.ofSeconds(60))
				.until(() -> CapturedLogs.since(mark).stream().filter(line -> line.contains("MasterEvidence")
						&& line.contains("1 of the 4 configured")).count() >= 2
						|| CapturedLogs.since(mark).stream().anyMatch(line -> line.contains("now go there")));
			int before = traffic.confirmedCount();
			traffic.awaitSessions(before + 5);
			stalePath.cut();
			Awaitility.await("the stale Sentinel's subscriptions lost").atMost(Duration.ofSeconds(60))
				.until(() -> both.stream().allMatch(relay -> relay.getBean(FollowedSentinels.class).count() == 0));
		}
		int before = traffic.confirmedCount();
		traffic.awaitSessions(before + 5);
		traffic.stop();
		paths.forEach(CuttablePathProxy::pass);

		List<String> logged = CapturedLogs.since(mark);
		System.out.printf("only a stale Sentinel reachable took the relays' subscriptions 3 times: %s%n",
				logged.stream().filter(line -> line.contains("MasterCatchUp") || line.contains("MasterEvidence")).toList());
		assertThat(logged).as("no move").noneMatch(line -> line.contains("now go there"));
		assertThat(logged).as("the one stale answer outweighed by the master taking writes, said once per relay")
			.filteredOn(line -> line.contains("MasterEvidence") && line.contains("name 127.0.0.1:"
					+ staleMastersPath.port() + " the master") && line.contains("1 of the 4 configured")
					&& line.contains("takes writes"))
			.hasSize(2);
		for (ConfigurableApplicationContext relay : both) {
			Health health = relay.getBean(RelayStoreHealth.class).health().block(Duration.ofSeconds(30));
			assertThat(relay.getBean(SentinelMasterSwitches.class).refusingWrites()).as(String.valueOf(health.getDetails()))
				.isNull();
			assertThat(String.valueOf(health.getDetails().get("unavailable"))).as(String.valueOf(health.getDetails()))
				.doesNotContain("writes");
		}
		assertThat(traffic.refused().subList(refusedBefore, traffic.refused().size()))
			.as("sessions refused while only the stale Sentinel was followed").isEmpty();
		assertThat(traffic.lost()).as("sessions lost").isEmpty();
	}

	/** The deployment's Sentinels, each behind a path of its own, the stale one listed last; closing it closes all. */
	private static final class StaleLast implements SharedRedis {

		@Override
		public String topology() {
			return "sentinel";
		}

		@Override
		public List<String> relayArguments() {
			return List.of("--spring.data.redis.sentinel.master=" + RedisSentinelProcesses.MASTER,
					"--spring.data.redis.sentinel.nodes=" + Stream.concat(paths.stream().map(CuttablePathProxy::port),
							Stream.of(stalePath.port()))
						.map(port -> "127.0.0.1:" + port)
						.collect(Collectors.joining(",")));
		}

		@Override
		public void close() throws Exception {
			if (paths != null) {
				for (CuttablePathProxy path : paths) {
					path.close();
				}
			}
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
