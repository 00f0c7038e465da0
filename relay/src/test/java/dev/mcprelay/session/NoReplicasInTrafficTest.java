package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.TestUpstreams;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import reactor.core.publisher.Mono;

/**
 * Review 45l L-4: a write refused {@code NOREPLICAS} in live traffic never started the catch-up (only {@code READONLY}
 * did), so a relay left on an undemoted old master short of replicas refused every store request while ready, until a
 * Sentinel's subscription was taken again. Here a real master refuses writes {@code NOREPLICAS} ({@code
 * min-replicas-to-write 1}, no replica), and a real Sentinel, the only one of three reachable, names another master:
 * one {@code NOREPLICAS} answer in traffic asks the Sentinels, and the connections move there. A Sentinel naming the
 * refusing master itself (its replica away, no failover) leaves them where they are, the store not refusing writes.
 */
class NoReplicasInTrafficTest {

	static final String MASTER = "relay-test";

	static RedisServerProcess shortOfReplicas;

	static RedisServerProcess other;

	static RedisServerProcess namingOther;

	static RedisServerProcess namingItself;

	static RedisClient client;

	static RedisClient own;

	static Throwable noReplicas;

	@BeforeAll
	static void start() throws Exception {
		RedisServerProcess.installedOrSkip();
		shortOfReplicas = RedisServerProcess.start(TestUpstreams.freePort(),
				List.of("--min-replicas-to-write", "1", "--min-replicas-max-lag", "5"));
		other = RedisServerProcess.start(TestUpstreams.freePort());
		namingOther = sentinel(other.port());
		namingItself = sentinel(shortOfReplicas.port());
		client = RedisClient.create();
		own = SentinelSubscription.ownClient(client);
		try (StatefulRedisConnection<String, String> connection = client
			.connect(RedisURI.create("127.0.0.1", shortOfReplicas.port()))) {
			noReplicas = Mono.fromCompletionStage(connection.async().set("a", "b"))
				.then(Mono.<Throwable>empty())
				.onErrorResume(Mono::just)
				.block(Duration.ofSeconds(30));
		}
	}

	private static RedisServerProcess sentinel(int monitored) throws Exception {
		int port = TestUpstreams.freePort();
		Path dir = Files.createDirectories(Path.of("target", "redis-sentinel-" + port).toAbsolutePath());
		Path config = dir.resolve("sentinel.conf");
		Files.writeString(config, String.join("\n", "dir " + dir,
				"sentinel monitor " + MASTER + " 127.0.0.1 " + monitored + " 1", ""));
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
		for (RedisServerProcess process : new RedisServerProcess[] { namingOther, namingItself, other,
				shortOfReplicas }) {
			if (process != null) {
				process.close();
			}
		}
	}

	@Test
	void aNoReplicasAnswerInTrafficAsksTheSentinelsAndMovesToTheMasterTheyName() throws Exception {
		assertThat(MasterEvidence.noReplicas(noReplicas)).as("the master's answer " + noReplicas).isTrue();
		List<String> moves = new CopyOnWriteArrayList<>();
		MasterCatchUp catchUp = catchUp(namingOther, moves);
		catchUp.moved(address(shortOfReplicas));
		// an answer within INTERVAL of a move is a call in flight on the connections moved away from: ignored
		Thread.sleep(MasterCatchUp.INTERVAL.toMillis() + 200);
		moves.clear();
		catchUp.failed(noReplicas);
		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> !moves.isEmpty());
		assertThat(moves).containsExactly(address(other));
		assertThat(catchUp.refusingWrites()).isNull();
		catchUp.stop();
	}

	@Test
	void aNoReplicasAnswerWhereTheSentinelsNameThatMasterMovesNothing() throws Exception {
		List<String> moves = new CopyOnWriteArrayList<>();
		MasterCatchUp catchUp = catchUp(namingItself, moves);
		catchUp.moved(address(shortOfReplicas));
		Thread.sleep(MasterCatchUp.INTERVAL.toMillis() + 200);
		moves.clear();
		long asked = catchUp.questions();
		catchUp.failed(noReplicas);
		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> catchUp.questions() > asked);
		Thread.sleep(MasterCatchUp.INTERVAL.toMillis());
		assertThat(moves).isEmpty();
		assertThat(catchUp.refusingWrites()).isNull();
		catchUp.stop();
	}

	private static MasterCatchUp catchUp(RedisServerProcess sentinel, List<String> moves) {
		List<RedisURI> sentinels = List.of(RedisURI.create("127.0.0.1", sentinel.port()),
				RedisURI.create("127.0.0.1", TestUpstreams.freePort()), RedisURI.create("127.0.0.1",
						TestUpstreams.freePort()));
		return new MasterCatchUp(MASTER, new ConfiguredSentinels(() -> sentinels), () -> own, () -> false, moves::add,
				() -> Mono.error(noReplicas));
	}

	private static String address(RedisServerProcess server) {
		return "127.0.0.1:" + server.port();
	}

}
