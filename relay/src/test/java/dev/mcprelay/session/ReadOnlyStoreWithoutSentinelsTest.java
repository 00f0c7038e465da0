package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.TestUpstreams;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import reactor.core.publisher.Mono;

/**
 * Review 45i I-1: while the store answered {@code READONLY} and no Sentinel could be asked, every {@code READONLY}
 * answer started a new question to the Sentinels, ~60 a second (and as many WARNs per Sentinel) under modest traffic.
 * Here a real replica answers a write {@code READONLY} and the three Sentinels' addresses refuse connections (nothing
 * listens there); a burst of {@code READONLY} answers, one every 2 ms for 5 s, puts at most one question to the
 * Sentinels per {@link MasterCatchUp#INTERVAL} (counted, not timed), each Sentinel's silence is logged once, the store
 * refuses writes meanwhile, and nothing is moved.
 */
class ReadOnlyStoreWithoutSentinelsTest {

	static RedisServerProcess replica;

	static RedisClient client;

	static RedisClient own;

	static Throwable readOnly;

	@BeforeAll
	static void start() throws Exception {
		// a replica of a master that is not there: it refuses every write READONLY, as a demoted old master does
		replica = RedisServerProcess.start(TestUpstreams.freePort(),
				List.of("--replicaof", "127.0.0.1", String.valueOf(TestUpstreams.freePort())));
		client = RedisClient.create();
		own = SentinelSubscription.ownClient(client);
		try (StatefulRedisConnection<String, String> connection = client
			.connect(RedisURI.create("127.0.0.1", replica.port()))) {
			readOnly = Mono.fromCompletionStage(connection.async().set("a", "b"))
				.then(Mono.<Throwable>empty())
				.onErrorResume(Mono::just)
				.block(Duration.ofSeconds(30));
		}
	}

	@AfterAll
	static void stop() throws Exception {
		if (own != null) {
			own.shutdown();
		}
		if (client != null) {
			client.shutdown();
		}
		if (replica != null) {
			replica.close();
		}
	}

	@Test
	void aBurstOfReadOnlyAnswersAsksTheUnreachableSentinelsAtMostOncePerInterval() throws Exception {
		assertThat(MasterCatchUp.readOnly(readOnly)).as("the replica's answer " + readOnly).isTrue();
		List<RedisURI> unreachable = List.of(uri(TestUpstreams.freePort()), uri(TestUpstreams.freePort()),
				uri(TestUpstreams.freePort()));
		List<String> moves = new CopyOnWriteArrayList<>();
		MasterCatchUp catchUp = new MasterCatchUp("relay-test", new ConfiguredSentinels(() -> unreachable), () -> own,
				() -> false, moves::add, () -> Mono.error(readOnly));
		int mark = CapturedLogs.all().size();
		long began = System.nanoTime();
		int answers = 0;
		try {
			while (System.nanoTime() - began < TimeUnit.SECONDS.toNanos(5)) {
				catchUp.failed(readOnly);
				answers++;
				Thread.sleep(2);
			}
			long elapsed = System.nanoTime() - began;
			long questions = catchUp.questions();
			long bound = (elapsed + MasterCatchUp.INTERVAL.toNanos() - 1) / MasterCatchUp.INTERVAL.toNanos() + 1;
			System.out.printf("%d READONLY answers in %d ms: %d questions to the Sentinels (at most %d)%n", answers,
					TimeUnit.NANOSECONDS.toMillis(elapsed), questions, bound);
			assertThat(questions).as("questions to the Sentinels for %d READONLY answers", answers)
				.isBetween(1L, bound);
			assertThat(catchUp.refusingWrites()).contains("READONLY");
			assertThat(moves).isEmpty();
			List<String> silences = CapturedLogs.since(mark).stream()
				.filter(line -> line.startsWith("WARN") && line.contains("did not name the master"))
				.toList();
			assertThat(silences).as("each Sentinel's silence said once").hasSize(3);
			assertThat(CapturedLogs.since(mark)).filteredOn(line -> line.contains("The store answered a write READONLY"))
				.hasSize(1);
		}
		finally {
			catchUp.stop();
		}
	}

	private static RedisURI uri(int port) {
		RedisURI uri = RedisURI.create("127.0.0.1", port);
		uri.setTimeout(Duration.ofSeconds(2));
		return uri;
	}

}
