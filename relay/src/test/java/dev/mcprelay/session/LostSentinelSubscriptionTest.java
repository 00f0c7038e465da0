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
 * A Sentinel subscription lost after the relay took it is noticed: with the channels of the relay's Sentinel user
 * revoked ({@code ACL SETUSER relay resetchannels}), Redis drops the subscribed connections. Lettuce used to reconnect
 * and subscribe again by itself, log {@code Re-subscribe failed: NOPERM} and keep a connection that received nothing,
 * while the health said {@code 3 of 3 followed} (review 45d: a later failover lost every session confirmed until the
 * old master's demotion). Now each loss is logged at WARN, the relay subscribes again itself, each Sentinel's refusal
 * is logged at WARN with the channels to grant and is in the {@code relayStore} health ({@code 0 of 3 followed},
 * {@code sentinels} unavailable); once the channels are granted again, every Sentinel is followed again.
 */
@ExtendWith(OutputCaptureExtension.class)
class LostSentinelSubscriptionTest {

	private static final String PASSWORD = "RelaySentinelPw-45f-lost";

	static RedisSentinelProcesses sentinel;

	static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		sentinel = RedisSentinelProcesses.start();
		sentinel.addSentinelUser("relay", PASSWORD, "~*", "+@all", "&*");
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
	void aSubscriptionLostLaterIsNoticedRetriedAndFollowedAgainOnceGranted(CapturedOutput output) throws Exception {
		FollowedSentinels followed = relay.getBean(FollowedSentinels.class);
		Awaitility.await("every Sentinel followed").atMost(Duration.ofSeconds(90)).until(() -> followed.count() == 3);

		sentinel.addSentinelUser("relay", PASSWORD, "resetchannels");
		Awaitility.await("every Sentinel refused the new subscription").atMost(Duration.ofSeconds(90))
			.until(() -> followed.noneFollowed() && followed.summary().split("NOPERM", -1).length == 4);
		Health refused = relay.getBean(RelayStoreHealth.class).health().block(Duration.ofSeconds(10));
		assertThat((String) refused.getDetails().get("sentinels")).startsWith("0 of 3 followed: none")
			.contains("NOPERM")
			.contains("'&*'");
		assertThat(String.valueOf(refused.getDetails().get("unavailable"))).contains("sentinels");
		String first = sentinel.relayArguments().get(1).replaceFirst(".*=", "").split(",")[0];
		Awaitility.await("the WARN lines").atMost(Duration.ofSeconds(10))
			.until(() -> output.getAll().lines()
				.anyMatch(line -> line.contains("WARN") && line.contains("subscription to Sentinel " + first + " was lost"))
					&& output.getAll().lines()
						.anyMatch(line -> line.contains("WARN")
								&& line.contains("Sentinel " + first + " refused the relay's subscription")
								&& line.contains("NOPERM") && line.contains("&+switch-master")));

		sentinel.addSentinelUser("relay", PASSWORD, "&*");
		Awaitility.await("every Sentinel followed again").atMost(Duration.ofSeconds(90)).until(() -> followed.count() == 3);
		Health following = relay.getBean(RelayStoreHealth.class).health().block(Duration.ofSeconds(10));
		assertThat(following.getDetails()).containsEntry("sentinels", "3 of 3 followed").doesNotContainKey("unavailable");
		assertThat(output.getAll()).contains("The relay follows Sentinel " + first + " again").doesNotContain(PASSWORD);
	}

}
