package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * Review 45g G-1: a Sentinel that answered each check just past the timeout was subscribed again every ~5 s for ever,
 * as each subscription taken reset the backoff to 1 s. Its subscriptions, each lost for want of an answer in time,
 * keep the backoff growing up to 30 s. Review 45h H-1: a subscription had to last a minute to start the backoff from
 * 1 s again, so after an unstable minute a Sentinel that was back was tried again only up to 30 s later: now one that
 * answers a check in time starts it from 1 s again, and a Sentinel that cannot be reached (its connection refused or
 * closed) is tried again every 4 s at most. Review 45h H-3: at the longest wait, relays do not retry in step.
 */
class SubscriptionBackoffTest {

	@Test
	void subscriptionsThatAnswerNoCheckInTimeKeepTheBackoffGrowingUpTo30s() {
		SubscriptionBackoff backoff = new SubscriptionBackoff();
		StringBuilder waits = new StringBuilder();
		for (int flap = 0; flap < 7; flap++) {
			waits.append(backoff.next(false).toSeconds()).append(' ');
		}
		assertThat(waits.toString().trim()).isEqualTo("1 2 4 8 16 30 30");
	}

	@Test
	void aSentinelThatCannotBeReachedIsTriedAgainEvery4sAtMost() {
		SubscriptionBackoff backoff = new SubscriptionBackoff();
		StringBuilder waits = new StringBuilder();
		for (int flap = 0; flap < 30; flap++) {
			waits.append(backoff.next(true).toSeconds()).append(' ');
		}
		assertThat(waits.toString().trim()).startsWith("1 2 4 4 4").doesNotContain("8").doesNotContain("30");
	}

	@Test
	void aSubscriptionThatAnswersChecksInTimeInARowStartsTheBackoffAgainFrom1s() {
		SubscriptionBackoff backoff = new SubscriptionBackoff();
		for (int failure = 0; failure < 6; failure++) {
			backoff.next(false);
		}
		assertThat(backoff.next(false)).isEqualTo(Duration.ofSeconds(30));
		for (int check = 0; check < SubscriptionBackoff.IN_A_ROW; check++) {
			backoff.answered();
		}
		assertThat(backoff.next(false)).as("lost after checks answered in time in a row").isEqualTo(Duration.ofSeconds(1));
		assertThat(backoff.next(false)).isEqualTo(Duration.ofSeconds(2));
	}

	/**
	 * Review 45i I-2: a Sentinel whose answers straddle the bound (some checks in time, then one late) was subscribed
	 * again every ~8 s for ever, as one check in time reset the backoff; it now keeps growing.
	 */
	@Test
	void subscriptionsWhoseChecksAreOnlySometimesInTimeKeepTheBackoffGrowing() {
		SubscriptionBackoff backoff = new SubscriptionBackoff();
		StringBuilder waits = new StringBuilder();
		for (int flap = 0; flap < 7; flap++) {
			for (int check = 0; check < SubscriptionBackoff.IN_A_ROW - 1; check++) {
				backoff.answered();
			}
			waits.append(backoff.next(false).toSeconds()).append(' ');
		}
		assertThat(waits.toString().trim()).isEqualTo("1 2 4 8 16 30 30");
	}

	@Test
	void theLongestWaitIsJitteredBelowItsCap() {
		Set<Duration> waits = new HashSet<>();
		for (int attempt = 0; attempt < 50; attempt++) {
			Duration wait = SentinelSubscription.jittered(SubscriptionBackoff.MAX, SubscriptionBackoff.MAX);
			assertThat(wait).isBetween(SubscriptionBackoff.MAX.multipliedBy(3).dividedBy(4), SubscriptionBackoff.MAX);
			waits.add(wait);
		}
		assertThat(waits).as("relays at the cap do not retry in step").hasSizeGreaterThan(10);
		assertThat(SentinelSubscription.jittered(Duration.ofSeconds(2), SubscriptionBackoff.MAX))
			.isBetween(Duration.ofSeconds(2), Duration.ofSeconds(3));
	}

	@Test
	void aClosedConnectionIsUnreachableAnUnansweredCheckIsNot() {
		assertThat(SentinelSubscription.unreachable(new SentinelSubscription.Lost("closed", true))).isTrue();
		assertThat(SentinelSubscription.unreachable(new SentinelSubscription.Lost("silent", false))).isFalse();
		assertThat(SentinelSubscription.unreachable(new io.lettuce.core.RedisConnectionException("Unable to connect",
				new java.net.ConnectException("Connection refused")))).isTrue();
		assertThat(SentinelSubscription.unreachable(new io.lettuce.core.RedisException("Connection disconnected")))
			.as("a connection closed under the handshake").isTrue();
		assertThat(SentinelSubscription.unreachable(new io.lettuce.core.RedisException("Connection closed prematurely")))
			.isTrue();
		assertThat(SentinelSubscription.unreachable(new io.lettuce.core.RedisCommandExecutionException(
				"NOPERM this user has no permissions"))).isFalse();
	}

}
