package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.testsupport.RedisSentinelProcesses;

/**
 * Review 45g G-2: a relay whose Sentinel user has the ACL documented before the relay checked its subscriptions (no
 * {@code +ping}) still follows every Sentinel, as a refused {@code PING} is an answer, but each check is denied and
 * recorded in the Sentinel's {@code ACL LOG}, and the relay said nothing. Now the first refusal is logged at WARN, once
 * per Sentinel, naming the grant missing ({@code +ping}).
 */
@ExtendWith(OutputCaptureExtension.class)
class SentinelUserWithoutPingTest {

	private static final String PASSWORD = "RelaySentinelPw-0c5e";

	static RedisSentinelProcesses sentinel;

	static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		sentinel = RedisSentinelProcesses.start();
		sentinel.addSentinelUser("relay", PASSWORD, "+subscribe", "+psubscribe", "+sentinel|get-master-addr-by-name",
				"&*");
		relay = SentinelUserRelays.start(sentinel, PASSWORD);
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (sentinel != null) {
			sentinel.close();
		}
	}

	@Test
	void aRefusedPingIsLoggedOncePerSentinelWithTheGrantAndTheSubscriptionsAreStillFollowed(CapturedOutput output)
			throws Exception {
		FollowedSentinels followed = relay.getBean(FollowedSentinels.class);
		Awaitility.await("every Sentinel followed").atMost(Duration.ofSeconds(90)).until(() -> followed.count() == 3);
		Awaitility.await("each Sentinel's refused PING logged").atMost(Duration.ofSeconds(30))
			.until(() -> pingRefusals(output) == 3);
		// several more checks (every 2 s), each refused: not logged again
		Thread.sleep(7_000);
		assertThat(pingRefusals(output)).isEqualTo(3);
		assertThat(followed.summary()).isEqualTo("3 of 3 followed");
		assertThat(output.getAll()).doesNotContain(PASSWORD);
	}

	private static long pingRefusals(CapturedOutput output) {
		return output.getAll().lines()
			.filter(line -> line.contains("WARN") && line.contains("refused the relay's PING") && line.contains("NOPERM")
					&& line.contains("ACL SETUSER <user> +ping"))
			.count();
	}

}
