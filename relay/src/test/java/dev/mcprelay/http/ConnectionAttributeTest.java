package dev.mcprelay.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.AttributeKey;

/**
 * What the relay keeps on a client connection for a while (the token it accepted there) is removed at its deadline, on
 * the connection's event loop, even if no request comes: nothing is held past its time. A value that took its place
 * meanwhile stays.
 */
class ConnectionAttributeTest {

	private static final AttributeKey<String> KEY = AttributeKey.valueOf(ConnectionAttributeTest.class.getName());

	@Test
	void aKeptValueIsRemovedAtItsDeadlineUnlessReplaced() {
		EmbeddedChannel connection = new EmbeddedChannel();
		connection.freezeTime();
		try {
			NettyExchange.keep(connection, KEY, "token-a", TimeUnit.SECONDS.toNanos(30));
			connection.advanceTimeBy(29, TimeUnit.SECONDS);
			connection.runScheduledPendingTasks();
			assertThat(connection.attr(KEY).get()).as("within its time").isEqualTo("token-a");

			connection.advanceTimeBy(2, TimeUnit.SECONDS);
			connection.runScheduledPendingTasks();
			assertThat(connection.attr(KEY).get()).as("past its time, with no request on the connection").isNull();

			NettyExchange.keep(connection, KEY, "token-b", TimeUnit.SECONDS.toNanos(10));
			NettyExchange.keep(connection, KEY, "token-c", TimeUnit.SECONDS.toNanos(30));
			connection.advanceTimeBy(11, TimeUnit.SECONDS);
			connection.runScheduledPendingTasks();
			assertThat(connection.attr(KEY).get()).as("token-b's removal leaves what replaced it").isEqualTo("token-c");
		}
		finally {
			connection.finishAndReleaseAll();
		}
	}

}
