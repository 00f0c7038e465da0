package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/**
 * Review 45g G-1: a Sentinel that answered each check just past the timeout was subscribed again every ~5 s for ever,
 * as each subscription taken reset the backoff to 1 s. Now a subscription lost soon after it was taken keeps the
 * backoff growing; only one that lasted a minute starts it again from 1 s.
 */
class SubscriptionBackoffTest {

	private static final long SECOND = Duration.ofSeconds(1).toNanos();

	@Test
	void subscriptionsLostSoonAfterTheyAreTakenKeepTheBackoffGrowingUpTo30s() {
		SubscriptionBackoff backoff = new SubscriptionBackoff();
		long now = 0;
		StringBuilder waits = new StringBuilder();
		for (int flap = 0; flap < 7; flap++) {
			backoff.subscribed(now);
			now += 4 * SECOND;
			Duration wait = backoff.next(now);
			waits.append(wait.toSeconds()).append(' ');
			now += wait.toNanos();
		}
		assertThat(waits.toString().trim()).isEqualTo("1 2 4 8 16 30 30");
	}

	@Test
	void aSubscriptionThatLastedAMinuteStartsTheBackoffAgainFrom1s() {
		SubscriptionBackoff backoff = new SubscriptionBackoff();
		assertThat(backoff.next(0)).as("refused").isEqualTo(Duration.ofSeconds(1));
		assertThat(backoff.next(SECOND)).as("refused again").isEqualTo(Duration.ofSeconds(2));
		backoff.subscribed(3 * SECOND);
		assertThat(backoff.next(62 * SECOND)).as("lost after 59 s").isEqualTo(Duration.ofSeconds(4));
		backoff.subscribed(66 * SECOND);
		assertThat(backoff.next(126 * SECOND)).as("lost after 60 s").isEqualTo(Duration.ofSeconds(1));
	}

}
