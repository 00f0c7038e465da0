package dev.mcprelay.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.AttributeKey;

/**
 * What the relay keeps on a client connection for a while (the token it accepted there) is removed at its deadline, on
 * the connection's event loop, even if no request comes: nothing is held past its time. A value that took its place
 * keeps its own deadline; one timer serves a connection however many values are set on it, and closing the connection
 * drops both.
 */
class ConnectionAttributeTest {

	private static final AttributeKey<Kept> KEY = AttributeKey.valueOf(ConnectionAttributeTest.class.getName());

	/** The test's clock, advanced with the connection's. */
	private final java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();

	private final ExpiringConnectionAttribute<Kept> kept = new ExpiringConnectionAttribute<>(KEY, Kept::until,
			now::get);

	private record Kept(String token, long until) {
	}

	@Test
	void aKeptValueIsRemovedAtItsDeadlineAndOneTimerServesTheConnection() {
		EmbeddedChannel connection = new EmbeddedChannel();
		connection.freezeTime();
		try {
			kept.keep(connection, new Kept("a", TimeUnit.SECONDS.toNanos(30)));
			advance(connection, 29);
			assertThat(connection.attr(KEY).get()).as("within its time").isNotNull();
			for (int i = 0; i < 1000; i++) {
				kept.keep(connection, new Kept("b" + i, now.get() + TimeUnit.SECONDS.toNanos(60)));
			}
			assertThat(pendingTimers(connection)).as("1,000 values, one timer").isEqualTo(1);

			advance(connection, 2);
			assertThat(connection.attr(KEY).get().token()).as("the value that replaced it keeps its own deadline")
				.isEqualTo("b999");
			assertThat(pendingTimers(connection)).as("rescheduled to it").isEqualTo(1);

			advance(connection, 61);
			assertThat(connection.attr(KEY).get()).as("past its time, with no request on the connection").isNull();
			assertThat(pendingTimers(connection)).isZero();
		}
		finally {
			connection.finishAndReleaseAll();
		}
	}

	@Test
	void closingTheConnectionDropsTheValueAndItsTimer() {
		EmbeddedChannel connection = new EmbeddedChannel();
		kept.keep(connection, new Kept("a", TimeUnit.SECONDS.toNanos(30)));
		assertThat(pendingTimers(connection)).isEqualTo(1);

		connection.close();

		assertThat(connection.attr(KEY).get()).isNull();
		assertThat(pendingTimers(connection)).as("cancelled, not held 30 s by a closed connection").isZero();
	}

	private void advance(EmbeddedChannel connection, long seconds) {
		now.addAndGet(TimeUnit.SECONDS.toNanos(seconds));
		connection.advanceTimeBy(seconds, TimeUnit.SECONDS);
		connection.runScheduledPendingTasks();
	}

	private static int pendingTimers(EmbeddedChannel connection) {
		var timer = connection.attr(AttributeKey.<java.util.concurrent.ScheduledFuture<?>>valueOf(KEY.name() + ".expiry"))
			.get();
		return timer == null || timer.isDone() ? 0 : 1;
	}

}
