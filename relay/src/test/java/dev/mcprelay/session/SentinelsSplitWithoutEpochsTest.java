package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.RedisWire;
import dev.mcprelay.testsupport.TestUpstreams;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisReadOnlyException;
import io.lettuce.core.RedisURI;
import reactor.core.publisher.Mono;

/**
 * Review 45j J-1: a Sentinel user without {@code +sentinel|master} (the ACL the docs gave) answers without an epoch,
 * so two Sentinels that disagree (one of them stale) decide nothing; the relay stayed on the demoted master, ready,
 * nothing logged above DEBUG, its health saying it was "asking the Sentinels". Here two real redis-sentinel processes
 * name two different masters for one name, and refuse {@code SENTINEL MASTER} ({@code NOPERM}); the store refuses
 * writes {@code READONLY}. The relay's catch-up says the split once (WARN), each Sentinel's refusal of
 * {@code SENTINEL MASTER} once, its reason for refusing writes names both sides, it counts as the Sentinels having
 * answered (not ready), and it moves nothing.
 */
class SentinelsSplitWithoutEpochsTest {

	static final String MASTER = "relay-split";

	static final List<RedisServerProcess> sentinels = new ArrayList<>();

	static final List<Integer> named = new ArrayList<>();

	static RedisClient client;

	static RedisClient own;

	@BeforeAll
	static void start() throws Exception {
		for (int index = 0; index < 2; index++) {
			int port = TestUpstreams.freePort();
			int master = TestUpstreams.freePort();
			named.add(master);
			Path dir = Files.createDirectories(Path.of("target", "redis-sentinel-split-" + port).toAbsolutePath());
			Path config = dir.resolve("sentinel.conf");
			Files.writeString(config, String.join("\n", "dir " + dir,
					"sentinel monitor " + MASTER + " 127.0.0.1 " + master + " 2", ""));
			RedisServerProcess sentinel = RedisServerProcess.startSentinel(port, config);
			sentinels.add(sentinel);
			Object answer = RedisWire.call(port, "ACL", "SETUSER", "default", "-sentinel|master");
			assertThat(answer).isEqualTo("OK");
		}
		client = RedisClient.create();
		own = SentinelSubscription.ownClient(client);
	}

	@AfterAll
	static void stop() throws Exception {
		if (own != null) {
			own.shutdown();
		}
		if (client != null) {
			client.shutdown();
		}
		for (RedisServerProcess sentinel : sentinels) {
			sentinel.close();
		}
	}

	@Test
	void aSplitThatDecidesNothingIsSaidAndLeavesTheRelayNotReady() throws Exception {
		List<RedisURI> both = sentinels.stream().map(sentinel -> uri(sentinel.port())).toList();
		Throwable readOnly = new RedisReadOnlyException("READONLY You can't write against a read only replica.");
		List<String> moves = new CopyOnWriteArrayList<>();
		int mark = CapturedLogs.all().size();
		MasterCatchUp catchUp = new MasterCatchUp(MASTER, new ConfiguredSentinels(() -> both), () -> own, () -> false,
				moves::add, () -> Mono.error(readOnly));
		try {
			catchUp.failed(readOnly);
			Awaitility.await("the split said in the reason for refusing writes").atMost(Duration.ofSeconds(30))
				.until(() -> String.valueOf(catchUp.refusingWrites()).contains("the Sentinels disagree"));
			long asked = catchUp.questions();
			Awaitility.await("asked twice more").atMost(Duration.ofSeconds(30))
				.until(() -> catchUp.questions() >= asked + 2);

			List<String> logged = CapturedLogs.since(mark);
			System.out.printf("a split without epochs: %s; %s%n", catchUp.refusingWrites(),
					logged.stream().filter(line -> line.contains("Sentinel")).toList());
			assertThat(catchUp.refusingWrites()).contains("127.0.0.1:" + named.get(0) + " (1)")
				.contains("127.0.0.1:" + named.get(1) + " (1)").contains("+sentinel|master");
			assertThat(catchUp.refusingDespiteTheSentinels()).as("not ready: the Sentinels answered").isTrue();
			assertThat(moves).as("nothing moved").isEmpty();
			assertThat(logged).as("the split said once")
				.filteredOn(line -> line.startsWith("WARN") && line.contains("disagree on the master")).hasSize(1);
			assertThat(logged).as("each Sentinel's refusal of SENTINEL MASTER said once")
				.filteredOn(line -> line.startsWith("WARN") && line.contains("refused SENTINEL MASTER")).hasSize(2);
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
