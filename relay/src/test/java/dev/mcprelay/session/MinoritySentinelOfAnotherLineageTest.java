package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.RedisWire;
import dev.mcprelay.testsupport.TestUpstreams;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import reactor.core.publisher.Mono;

/**
 * Review 45l L-1: one Sentinel's later configuration epoch was trusted alone: a Sentinel of another deployment (same
 * master name, epoch 80) moved a relay onto that deployment's Redis, and a stale one (epoch 50) onto a replica. Here,
 * with real redis-server instances (this deployment's master and its replica, and an unrelated master) and real
 * Sentinels, the one reachable Sentinel of three names, with a later epoch than the one the relay follows: the
 * unrelated master (another replid): no move, WARN naming that Sentinel; the replica: no move; then the same replica
 * promoted (its {@code master_replid2} the old master's replid, as after a failover whose old master was not demoted,
 * review 45k K-1): the connections move there.
 */
class MinoritySentinelOfAnotherLineageTest {

	static final String MASTER = "relay-test";

	static RedisServerProcess ours;

	static RedisServerProcess replica;

	static RedisServerProcess foreign;

	static RedisServerProcess oursSentinel;

	static RedisServerProcess foreignSentinel;

	static RedisServerProcess staleSentinel;

	static RedisClient client;

	static RedisClient own;

	@BeforeAll
	static void start() throws Exception {
		RedisServerProcess.installedOrSkip();
		ours = RedisServerProcess.start(TestUpstreams.freePort(), List.of("--repl-diskless-sync-delay", "0"));
		replica = RedisServerProcess.start(TestUpstreams.freePort(),
				List.of("--replicaof", "127.0.0.1", String.valueOf(ours.port())));
		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> "up"
				.equals(RedisWire.field(RedisWire.text(replica.port(), "INFO", "replication"), "master_link_status")));
		// started after the replica's full sync, which left an RDB with our replid where a server without a directory
		// of its own found and loaded it (2 of 4 runs moved onto this "foreign" master: it proved our lineage)
		foreign = RedisServerProcess.start(TestUpstreams.freePort());
		oursSentinel = sentinel(ours.port(), 0);
		foreignSentinel = sentinel(foreign.port(), 80);
		client = RedisClient.create();
		own = SentinelSubscription.ownClient(client);
	}

	private static RedisServerProcess sentinel(int monitored, long epoch) throws Exception {
		int port = TestUpstreams.freePort();
		Path dir = Files.createDirectories(Path.of("target", "redis-sentinel-" + port).toAbsolutePath());
		Path config = dir.resolve("sentinel.conf");
		Files.writeString(config, String.join("\n", "dir " + dir,
				"sentinel monitor " + MASTER + " 127.0.0.1 " + monitored + " 1",
				"sentinel config-epoch " + MASTER + " " + epoch, ""));
		return RedisServerProcess.startSentinel(port, config);
	}

	@AfterAll
	static void stop() throws Exception {
		if (own != null) {
			own.shutdown();
		}
		if (client != null) {
			client.shutdown();
		}
		for (RedisServerProcess process : new RedisServerProcess[] { oursSentinel, foreignSentinel, staleSentinel,
				foreign, replica, ours }) {
			if (process != null) {
				process.close();
			}
		}
	}

	@Test
	void oneSentinelsLaterEpochMovesOnlyToThisDeploymentsPromotedMaster() throws Exception {
		AtomicReference<List<RedisURI>> sentinels = new AtomicReference<>(reachable(oursSentinel));
		List<String> moves = new CopyOnWriteArrayList<>();
		MasterLineage lineage = MasterLineage.withoutCredentials();
		MasterCatchUp catchUp = new MasterCatchUp(MASTER, new ConfiguredSentinels(sentinels::get), lineage, () -> own,
				() -> false, moves::add, Mono::empty);
		catchUp.subscribed();
		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> lineage.seen() != null);
		assertThat(lineage.seen().address()).isEqualTo(address(ours));
		assertThat(lineage.seen().replicas()).contains(address(replica));
		// our Sentinel gone before the stale one starts (it would adopt the stale one's epoch 50 from its hello)
		oursSentinel.close();
		oursSentinel = null;

		String foreignReplication = RedisWire.text(foreign.port(), "INFO", "replication");
		assertThat(List.of(RedisWire.field(foreignReplication, "master_replid"),
				RedisWire.field(foreignReplication, "master_replid2")))
			.as("the foreign master's replication history shares nothing with ours")
			.doesNotContain(lineage.seen().replid());

		int mark = CapturedLogs.all().size();
		sentinels.set(reachable(foreignSentinel));
		catchUp.subscribed();
		String foreignSaid = "Sentinel 127.0.0.1:" + foreignSentinel.port() + " names " + address(foreign);
		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> said(mark, foreignSaid, "stay"));
		assertThat(moves).as("a Sentinel of another deployment, epoch 80, 1 of 3").isEmpty();
		assertThat(said(mark, foreignSaid, "not this deployment's master")).isTrue();

		staleSentinel = sentinel(replica.port(), 50);
		sentinels.set(reachable(staleSentinel));
		int staleMark = CapturedLogs.all().size();
		catchUp.subscribed();
		String staleSaid = "Sentinel 127.0.0.1:" + staleSentinel.port() + " names " + address(replica);
		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> said(staleMark, staleSaid, "stay"));
		assertThat(moves).as("a stale Sentinel naming the replica, epoch 50, 1 of 3").isEmpty();
		assertThat(said(staleMark, staleSaid, "not a master")).isTrue();

		RedisWire.call(replica.port(), "REPLICAOF", "NO", "ONE");
		catchUp.subscribed();
		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> !moves.isEmpty());
		assertThat(moves).as("this deployment's promoted replica (K-1)").containsExactly(address(replica));
		catchUp.stop();
	}

	/** Whether a WARN since {@code mark} says both. */
	private static boolean said(int mark, String what, String also) {
		return CapturedLogs.since(mark).stream()
			.anyMatch(line -> line.startsWith("WARN") && line.contains(what) && line.contains(also));
	}

	private static List<RedisURI> reachable(RedisServerProcess sentinel) {
		return List.of(RedisURI.create("127.0.0.1", sentinel.port()), RedisURI.create("127.0.0.1",
				TestUpstreams.freePort()), RedisURI.create("127.0.0.1", TestUpstreams.freePort()));
	}

	private static String address(RedisServerProcess server) {
		return "127.0.0.1:" + server.port();
	}

}
