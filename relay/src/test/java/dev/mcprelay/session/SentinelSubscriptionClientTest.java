package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;

/**
 * Review 45g G-3: a Sentinel subscription attempt whose handshake timed out was reconnected by Lettuce's watchdog after
 * the relay gave it up, and stayed open for ever, unchecked. The relay's own subscriptions now use a client without
 * auto-reconnect (the relay subscribes again itself) that shares the store client's resources and other options, and
 * whose shutdown leaves those resources running.
 */
class SentinelSubscriptionClientTest {

	@Test
	void theSubscriptionsClientDoesNotReconnectAndSharesTheStoreClientsResources() throws Exception {
		RedisClient shared = RedisClient.create();
		try {
			shared.setOptions(ClientOptions.builder()
				.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
				.build());
			RedisClient own = SentinelSubscription.ownClient(shared);
			assertThat(own.getOptions().isAutoReconnect()).isFalse();
			assertThat(own.getOptions().getDisconnectedBehavior())
				.isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
			assertThat(own.getResources()).isSameAs(shared.getResources());
			own.shutdownAsync(0, 2, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
			assertThat(shared.getResources().eventExecutorGroup().isShuttingDown()).isFalse();
			assertThat(shared.getOptions().isAutoReconnect()).isTrue();
		}
		finally {
			shared.shutdown();
		}
	}

}
