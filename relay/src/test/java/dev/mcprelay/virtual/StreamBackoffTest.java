package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/**
 * How long a member's stream waits before it is opened again: longer with each failure in a row, up to the bound,
 * and back to the first wait once a stream opened, so that a member's short outage after a long one costs the client
 * a short wait (a 1 s outage after an 8 s one kept a member's events off the stream for 9.4 s before).
 */
class StreamBackoffTest {

	@Test
	void eachFailureInARowWaitsLongerUpToTheBound() {
		StreamBackoff backoff = new StreamBackoff();
		Duration previous = Duration.ZERO;
		for (int failure = 0; failure < 12; failure++) {
			Duration wait = backoff.afterFailure();
			assertThat(wait).as("failure %d", failure).isLessThanOrEqualTo(StreamBackoff.MAX.plus(StreamBackoff.MAX.dividedBy(4)));
			if (failure < 5) {
				assertThat(wait).as("failure %d waits longer than the one before", failure).isGreaterThan(previous);
			}
			previous = wait;
		}
		assertThat(previous).as("bounded").isGreaterThanOrEqualTo(StreamBackoff.MAX.minus(StreamBackoff.MAX.dividedBy(4)));
	}

	@Test
	void aStreamThatOpenedStartsOverFromTheFirstWait() {
		StreamBackoff backoff = new StreamBackoff();
		for (int failure = 0; failure < 5; failure++) {
			backoff.afterFailure();
		}
		backoff.opened();

		assertThat(backoff.afterFailure()).as("the first failure after the stream opened again")
			.isLessThanOrEqualTo(StreamBackoff.FIRST.plus(StreamBackoff.FIRST.dividedBy(4)));
	}

	@Test
	void aStreamThatEndedOnItsOwnIsOpenedAgainSoon() {
		StreamBackoff backoff = new StreamBackoff();
		for (int failure = 0; failure < 5; failure++) {
			backoff.afterFailure();
		}

		assertThat(backoff.afterEnd()).isLessThanOrEqualTo(StreamBackoff.FIRST.plus(StreamBackoff.FIRST.dividedBy(4)));
	}

}
