package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.testsupport.RedisSentinelProcesses;

/**
 * A relay whose Sentinel user may ask for the master but not subscribe to the Sentinels' channels (a Redis 7 ACL user
 * {@code ~* +@all}, which gets no channel: {@code NOPERM} on {@code SUBSCRIBE}) follows no failover. It used to retry
 * silently and say nothing; now each Sentinel's refusal is logged at WARN with its address and the channels to grant,
 * and the {@code relayStore} health says {@code 0 of 3 followed} and has {@code sentinels} unavailable. Once the
 * channels are granted, the retries subscribe and the health says {@code 3 of 3 followed}.
 */
@ExtendWith(OutputCaptureExtension.class)
class RefusedSentinelSubscriptionTest {

	private static final String PASSWORD = "RelaySentinelPw-7f3a";

	static RedisSentinelProcesses sentinel;

	static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		sentinel = RedisSentinelProcesses.start();
		sentinel.addSentinelUser("relay", PASSWORD, "~*", "+@all");
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
	void aRefusedSubscriptionIsLoggedAndInTheHealthUntilTheChannelsAreGranted(CapturedOutput output) throws Exception {
		FollowedSentinels followed = relay.getBean(FollowedSentinels.class);
		// a loaded machine may first time a handshake out: wait for each Sentinel's own refusal
		Awaitility.await("every Sentinel refused the channels").atMost(Duration.ofSeconds(90))
			.until(() -> followed.noneFollowed() && followed.summary().split("NOPERM", -1).length == 4);
		Health refused = relay.getBean(RelayStoreHealth.class).health().block(Duration.ofSeconds(10));
		assertThat((String) refused.getDetails().get("sentinels")).startsWith("0 of 3 followed: none")
			.contains("NOPERM")
			.contains("'&*'");
		assertThat(String.valueOf(refused.getDetails().get("unavailable"))).contains("sentinels");
		String first = sentinel.relayArguments().get(1).replaceFirst(".*=", "").split(",")[0];
		Awaitility.await("the WARN line").atMost(Duration.ofSeconds(10))
			.until(() -> output.getAll().lines()
				.anyMatch(line -> line.contains("WARN") && line.contains("Sentinel " + first + " refused the relay's subscription")
						&& line.contains("NOPERM") && line.contains("&+switch-master")));

		sentinel.addSentinelUser("relay", PASSWORD, "&*");
		Awaitility.await("every Sentinel followed").atMost(Duration.ofSeconds(90)).until(() -> followed.count() == 3);
		Health following = relay.getBean(RelayStoreHealth.class).health().block(Duration.ofSeconds(10));
		assertThat(following.getDetails()).containsEntry("sentinels", "3 of 3 followed").doesNotContainKey("unavailable");
		assertThat(output.getAll()).doesNotContain(PASSWORD);
	}

}
