package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.CuttablePathProxy;
import dev.mcprelay.testsupport.RedisSentinelProcesses;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import reactor.core.Disposable;

/**
 * Review 45h H-4: the relay's question for the master left a Sentinel connection open for ever when the Sentinel
 * answered its handshake after the question had given it up (its timeout starts before the connection does, Lettuce's
 * handshake timeout when it is open): the connection completed unseen, and Lettuce's reconnection kept it alive. Here
 * the first Sentinel, behind a proxy that holds the first answer of each connection 1.5 s, is asked and the question
 * cancelled (as its timeout cancels it) while its handshake is held: the connection, once open, is closed. The
 * question asked in full goes on to the next Sentinel when the first is slower than its bound, and leaves no
 * connection open either.
 */
class NamedMasterConnectionTest {

	static RedisSentinelProcesses sentinel;

	static CuttablePathProxy slow;

	static RedisClient shared;

	static RedisClient client;

	@BeforeAll
	static void start() throws Exception {
		sentinel = RedisSentinelProcesses.start();
		slow = new CuttablePathProxy(sentinel.sentinelPort(0));
		slow.delayFirstAnswer(Duration.ofMillis(1500));
		shared = RedisClient.create();
		client = SentinelSubscription.ownClient(shared);
	}

	@AfterAll
	static void stop() throws Exception {
		if (client != null) {
			client.shutdown();
		}
		if (shared != null) {
			shared.shutdown();
		}
		if (slow != null) {
			slow.close();
		}
		if (sentinel != null) {
			sentinel.close();
		}
	}

	@Test
	void aQuestionGivenUpBeforeItsConnectionOpensClosesThatConnection() {
		int before = slow.accepted();
		Disposable asked = ConfiguredSentinels.namedMaster(client, List.of(uri(slow.port(), Duration.ofSeconds(5))),
				RedisSentinelProcesses.MASTER).subscribe();
		Awaitility.await("the question's connection accepted").atMost(Duration.ofSeconds(30))
			.until(() -> slow.accepted() > before);
		asked.dispose();
		Awaitility.await("the question's connection closed once it opened").atMost(Duration.ofSeconds(30))
			.pollDelay(Duration.ofSeconds(3))
			.until(() -> slow.open() == 0);
	}

	@Test
	void aSentinelSlowerThanTheBoundIsLeftForTheNextAndNoConnectionStaysOpen() throws Exception {
		String named = ConfiguredSentinels.namedMaster(client,
				List.of(uri(slow.port(), Duration.ofSeconds(1)), uri(sentinel.sentinelPort(1), Duration.ofSeconds(5))),
				RedisSentinelProcesses.MASTER).block(Duration.ofSeconds(30));
		assertThat(named).isEqualTo("127.0.0.1:" + sentinel.masterPort());
		Awaitility.await("no question's connection left open").atMost(Duration.ofSeconds(30))
			.pollDelay(Duration.ofSeconds(3))
			.until(() -> slow.open() == 0);
	}

	private static RedisURI uri(int port, Duration timeout) {
		RedisURI uri = RedisURI.create("127.0.0.1", port);
		uri.setTimeout(timeout);
		return uri;
	}

}
