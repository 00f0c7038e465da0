package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.TestUpstreams;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import reactor.core.publisher.Mono;

/**
 * A Sentinel's subscription taken while the catch-up's question to the Sentinels is still under way was dropped: the
 * question under way may have asked before that Sentinel answered again, and nothing asked after it (found by
 * MinoritySentinelOfAnotherLineageTest, whose second {@code subscribed()} could come before the first question ended).
 * Here the only Sentinel (a real one) is frozen, so the first question cannot end; a second subscription is taken
 * during it; once the Sentinel answers again, a second question is asked.
 */
class SubscriptionDuringAQuestionTest {

	static final String MASTER = "relay-test";

	static RedisServerProcess master;

	static RedisServerProcess sentinel;

	static RedisClient client;

	static RedisClient own;

	@BeforeAll
	static void start() throws Exception {
		RedisServerProcess.installedOrSkip();
		master = RedisServerProcess.start(TestUpstreams.freePort(), List.of());
		int port = TestUpstreams.freePort();
		Path dir = Files.createDirectories(Path.of("target", "redis-sentinel-" + port).toAbsolutePath());
		Path config = dir.resolve("sentinel.conf");
		Files.writeString(config, String.join("\n", "dir " + dir,
				"sentinel monitor " + MASTER + " 127.0.0.1 " + master.port() + " 1", ""));
		sentinel = RedisServerProcess.startSentinel(port, config);
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
		for (RedisServerProcess process : new RedisServerProcess[] { sentinel, master }) {
			if (process != null) {
				process.close();
			}
		}
	}

	@Test
	void aSubscriptionTakenDuringAQuestionIsAskedWhenItEnds() throws Exception {
		MasterCatchUp catchUp = new MasterCatchUp(MASTER,
				new ConfiguredSentinels(() -> List.of(RedisURI.create("127.0.0.1", sentinel.port()))),
				MasterLineage.withoutCredentials(), () -> own, () -> false, address -> {
				}, Mono::empty);
		sentinel.freeze();
		catchUp.subscribed();
		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> catchUp.questions() == 1);
		catchUp.subscribed();
		sentinel.thaw();
		Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> catchUp.questions() >= 2);
		assertThat(catchUp.questions()).as("one more question for the subscription taken during the first").isEqualTo(2);
		catchUp.stop();
	}

}
