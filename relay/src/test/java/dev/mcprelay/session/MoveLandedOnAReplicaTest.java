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
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.CuttablePathProxy;
import dev.mcprelay.testsupport.RedisSentinelProcesses;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.RedisWire;
import dev.mcprelay.testsupport.SharedRedis;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Review 45j J-3: a catch-up move is a reset of the store's connections, and Lettuce reconnects them where the first
 * Sentinel that answers says, not to the Sentinels' verdict; a move that landed elsewhere was never tried again ("not
 * moved again", DEBUG), so a relay stayed on a replica, unready, after every Sentinel it could reach named the master,
 * the health saying its connections were at the master. Here a fourth Sentinel that never reaches Redis (its path to
 * its master cut) names the old master, now a replica, and is listed first. The relays start on the master (the stale
 * Sentinel's path cut; its user may not subscribe on the data servers, so it never learns the failover), then it is reachable and their store connections are killed: Lettuce reconnects them to the replica, writes
 * are refused READONLY, the relays move toward the master the Sentinels' epochs name, and land on the replica again.
 * The write check after each move says so (health: still refused READONLY; WARN once), and the relays move again every
 * 2 s; once the stale Sentinel is unreachable, the next move lands on the master and writes are taken again. In the
 * longer tier ({@code -Pscale}).
 */
@Tag("scale")
class MoveLandedOnAReplicaTest {

	static RedisSentinelProcesses sentinel;

	static RedisServerProcess stale;

	static CuttablePathProxy stalePath;

	static TwoRelaysOverRedis relays;

	static int promoted;

	static int old;

	static final String STALE_PASSWORD = "stale-sentinel-pw";

	@BeforeAll
	static void start() throws Exception {
		sentinel = RedisSentinelProcesses.start();
		old = sentinel.failover(0);
		promoted = sentinel.awaitFailoverFrom(old);
		sentinel.awaitDemoted(old);
		// the stale Sentinel's user may not subscribe on the data servers: it never hears the others' hellos, so it
		// keeps naming the old master (now a replica) at epoch 0, where Lettuce then reconnects
		for (int data : sentinel.dataPorts()) {
			assertThat(RedisWire.call(data, "ACL", "SETUSER", "stale", "on", ">" + STALE_PASSWORD, "~*", "&*", "+@all",
					"-subscribe", "-psubscribe", "-publish")).isEqualTo("OK");
		}
		int port = TestUpstreams.freePort();
		Path dir = Files.createDirectories(Path.of("target", "redis-sentinel-misplaced-" + port).toAbsolutePath());
		Path config = dir.resolve("sentinel.conf");
		Files.writeString(config, String.join("\n", "dir " + dir,
				"sentinel monitor " + RedisSentinelProcesses.MASTER + " 127.0.0.1 " + old + " 2",
				"sentinel auth-user " + RedisSentinelProcesses.MASTER + " stale",
				"sentinel auth-pass " + RedisSentinelProcesses.MASTER + " " + STALE_PASSWORD,
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
	void aMoveThatLandsOnAReplicaIsTriedAgain() throws Exception {
		List<ConfigurableApplicationContext> both = List.of(relays.first(), relays.second());
		Awaitility.await("both relays follow the three Sentinels with the latest view").atMost(Duration.ofSeconds(90))
			.until(() -> both.stream().allMatch(relay -> relay.getBean(FollowedSentinels.class).count() == 3));
		FailoverTraffic traffic = FailoverTraffic.start(relays);
		traffic.awaitSessions(5);

		int mark = CapturedLogs.all().size();
		stalePath.pass();
		Awaitility.await("the stale Sentinel takes both relays' subscriptions").atMost(Duration.ofSeconds(60))
			.until(() -> both.stream().allMatch(relay -> relay.getBean(FollowedSentinels.class).count() == 4));
		RedisWire.call(promoted, "CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
		Awaitility.await("both relays' moves land on the replica, and the write check says so")
			.atMost(Duration.ofSeconds(90))
			.until(() -> both.stream().allMatch(relay -> String.valueOf(relay.getBean(SentinelMasterSwitches.class)
				.refusingWrites()).contains("still refused READONLY")));
		stalePath.cut();
		Awaitility.await("both relays' connections reach the master: writes taken again").atMost(Duration.ofSeconds(60))
			.until(() -> both.stream().allMatch(relay -> relay.getBean(SentinelMasterSwitches.class)
				.refusingWrites() == null));
		int before = traffic.confirmedCount();
		traffic.awaitSessions(before + 5);
		traffic.stop();

		List<String> logged = CapturedLogs.since(mark);
		System.out.printf("moves landing on the replica: %s%n",
				logged.stream().filter(line -> line.contains("MasterCatchUp")).toList());
		assertThat(logged).as("a move that did not take, said once per relay")
			.filteredOn(line -> line.contains("MasterCatchUp") && line.contains("moved toward 127.0.0.1:" + promoted)
					&& line.contains("moved again"))
			.hasSize(2);
		assertThat(logged).as("writes taken again")
			.filteredOn(line -> line.contains("MasterCatchUp") && line.contains("writes are taken again"))
			.hasSizeGreaterThanOrEqualTo(2);
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
			if (sentinel != null) {
				sentinel.close();
			}
		}

	}

}
