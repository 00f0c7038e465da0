package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.CuttablePathProxy;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.RedisWire;
import dev.mcprelay.testsupport.SharedRedis;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Review 45k K-1: after a real failover whose old master the Sentinels could not demote (it still takes writes), a
 * relay that missed it and then reached only one of its three Sentinels, an up-to-date one naming the new master with a
 * later configuration epoch, stayed on the old master (one answer of three, and the old master took the write check):
 * its sessions were lost to the other relays. Here the old master cannot be demoted ({@code SLAVEOF} and {@code
 * REPLICAOF} renamed away), both relays' paths to the Sentinels are cut, a graceful failover promotes the replica, and
 * only the path to the first Sentinel passes again: both relays move to the new master (its epoch later than the one
 * they followed), and sessions opened after that are known to both. In the longer tier ({@code -Pscale}).
 */
@Tag("scale")
class UndemotedOldMasterTest {

	static final String MASTER = "relay-test";

	static final List<RedisServerProcess> servers = new ArrayList<>();

	static final List<CuttablePathProxy> paths = new ArrayList<>();

	static int oldMaster;

	static int replica;

	static TwoRelaysOverRedis relays;

	@BeforeAll
	static void start() throws Exception {
		RedisServerProcess.installedOrSkip();
		oldMaster = TestUpstreams.freePort();
		servers.add(RedisServerProcess.start(oldMaster, List.of("--dir", dir("redis-data-" + oldMaster),
				"--repl-diskless-sync-delay", "0", "--rename-command", "SLAVEOF", "slaveof-k1-disabled",
				"--rename-command", "REPLICAOF", "replicaof-k1-disabled")));
		replica = TestUpstreams.freePort();
		servers.add(RedisServerProcess.start(replica, List.of("--dir", dir("redis-data-" + replica), "--replicaof",
				"127.0.0.1", String.valueOf(oldMaster))));
		for (int index = 0; index < 3; index++) {
			int port = TestUpstreams.freePort();
			Path config = Path.of(dir("redis-sentinel-" + port), "sentinel.conf");
			Files.writeString(config, String.join("\n", "dir " + config.getParent(),
					"sentinel monitor " + MASTER + " 127.0.0.1 " + oldMaster + " 2",
					"sentinel down-after-milliseconds " + MASTER + " 2000",
					"sentinel failover-timeout " + MASTER + " 10000", ""));
			RedisServerProcess sentinel = RedisServerProcess.startSentinel(port, config);
			servers.add(sentinel);
			paths.add(new CuttablePathProxy(port));
		}
		relays = TwoRelaysOverRedis.over(new Deployment(),
				"--mcp-relay.servers.alpha.url=" + TestUpstreams.SDK.url("/stateless"),
				"--mcp-relay.virtual-servers.all.members=alpha").awaitReady();
	}

	private static String dir(String name) throws Exception {
		return Files.createDirectories(Path.of("target", name).toAbsolutePath()).toString();
	}

	private static int sentinelPort(int index) {
		return servers.get(2 + index).port();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relays != null) {
			relays.close();
		}
		else {
			new Deployment().close();
		}
	}

	@Test
	void aLaterEpochFromTheOnlyReachableSentinelMovesTheRelaysOffAnOldMasterThatStillTakesWrites() throws Exception {
		List<ConfigurableApplicationContext> both = List.of(relays.first(), relays.second());
		Awaitility.await("both relays follow the three Sentinels").atMost(Duration.ofSeconds(90))
			.until(() -> both.stream().allMatch(relay -> relay.getBean(FollowedSentinels.class).count() == 3));
		Awaitility.await("the Sentinels know the replica, in sync").atMost(Duration.ofSeconds(60))
			.until(() -> "up".equals(RedisWire.field(RedisWire.text(replica, "INFO", "replication"), "master_link_status"))
					&& ((List<?>) RedisWire.call(sentinelPort(0), "SENTINEL", "REPLICAS", MASTER)).size() == 1);
		FailoverTraffic traffic = FailoverTraffic.start(relays);
		traffic.awaitSessions(5);

		int mark = CapturedLogs.all().size();
		paths.forEach(CuttablePathProxy::cut);
		Awaitility.await("both relays follow no Sentinel").atMost(Duration.ofSeconds(60))
			.until(() -> both.stream().allMatch(relay -> relay.getBean(FollowedSentinels.class).count() == 0));
		Awaitility.await("a graceful failover started").atMost(Duration.ofSeconds(60))
			.until(() -> "OK".equals(RedisWire.call(sentinelPort(0), "SENTINEL", "FAILOVER", MASTER)));
		Awaitility.await("every Sentinel names the replica").atMost(Duration.ofSeconds(60))
			.until(() -> {
				for (int index = 0; index < 3; index++) {
					List<?> named = (List<?>) RedisWire.call(sentinelPort(index), "SENTINEL", "GET-MASTER-ADDR-BY-NAME",
							MASTER);
					if (!String.valueOf(replica).equals(named.get(1))) {
						return false;
					}
				}
				return true;
			});
		traffic.awaitSessions(traffic.confirmedCount() + 5);
		assertThat(RedisWire.field(RedisWire.text(oldMaster, "INFO", "replication"), "role"))
			.as("the old master, never demoted, still takes writes").isEqualTo("master");

		paths.get(0).pass();
		Awaitility.await("both relays moved to the new master").atMost(Duration.ofSeconds(60))
			.until(() -> CapturedLogs.since(mark).stream().filter(line -> line.contains("MasterCatchUp")
					&& line.contains("now go there") && line.contains("127.0.0.1:" + replica)).count() >= 2
					|| CapturedLogs.since(mark).stream().anyMatch(line -> line.contains("MasterEvidence")
							&& line.contains("they stay")));
		long moved = System.nanoTime() + Duration.ofSeconds(2).toNanos();
		Thread.sleep(2000);
		int before = traffic.confirmedCount();
		traffic.awaitSessions(before + 10);
		traffic.stop();
		paths.forEach(CuttablePathProxy::pass);

		List<String> logged = CapturedLogs.since(mark);
		System.out.printf("an undemoted old master, one fresh Sentinel reachable: %s%n",
				logged.stream().filter(line -> line.contains("MasterCatchUp") || line.contains("MasterEvidence")).toList());
		assertThat(logged).as("no stay on the old master").noneMatch(line -> line.contains("MasterEvidence")
				&& line.contains("they stay"));
		assertThat(logged).as("both relays moved")
			.filteredOn(line -> line.contains("MasterCatchUp") && line.contains("now go there")
					&& line.contains("127.0.0.1:" + replica))
			.hasSize(2);
		List<String> after = traffic.confirmed().stream().filter(session -> traffic.confirmedAt(session) > moved)
			.toList();
		assertThat(after).hasSizeGreaterThanOrEqualTo(10);
		assertThat(traffic.lost()).as("sessions opened after the move lost").doesNotContainAnyElementsOf(after);
	}

	/** The deployment: the Sentinels each behind a path of its own; closing it closes all. */
	private static final class Deployment implements SharedRedis {

		@Override
		public String topology() {
			return "sentinel";
		}

		@Override
		public List<String> relayArguments() {
			return List.of("--spring.data.redis.sentinel.master=" + MASTER, "--spring.data.redis.sentinel.nodes="
					+ paths.stream().map(path -> "127.0.0.1:" + path.port()).collect(Collectors.joining(",")));
		}

		@Override
		public void close() throws Exception {
			for (CuttablePathProxy path : paths) {
				path.close();
			}
			for (RedisServerProcess server : servers) {
				server.close();
			}
		}

	}

}
