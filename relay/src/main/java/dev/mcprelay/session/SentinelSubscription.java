package dev.mcprelay.session;

import java.time.Duration;

import dev.mcprelay.OffEventLoop;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubListener;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * The relay's subscription to one Sentinel's failover channels, kept in force for as long as it is {@link #follow
 * followed}: a connection of its own is opened and subscribed ({@code SUBSCRIBE} the channels, {@code PSUBSCRIBE} the
 * patterns), the Sentinel is then {@link FollowedSentinels#followed followed}; when that connection is lost (the
 * Sentinel restarted or unreachable, or Redis dropped it because the user's channels were revoked), it is closed rather
 * than left to Lettuce's reconnection, which subscribes again on its own and, when the Sentinel refuses, only logs it
 * and keeps an open connection that receives nothing. The Sentinel is then {@link FollowedSentinels#lost not followed}
 * (WARN), and a new connection is subscribed, backing off from 1 s up to 30 s while it fails (each refusal reported to
 * {@link FollowedSentinels#refused}), until it is followed again. Connecting runs off the event loops (it may block);
 * nothing waits for an answer. Never fails; disposing it closes the connection.
 */
final class SentinelSubscription {

	private SentinelSubscription() {
	}

	/**
	 * Keeps {@code sentinel}'s {@code channels} and {@code patterns} delivered to {@code listener} through a connection
	 * of {@code client}, and {@code followed} told whether they are, until the returned subscription is disposed.
	 */
	static Disposable follow(RedisClient client, RedisURI sentinel, RedisPubSubListener<String, String> listener,
			FollowedSentinels followed, String[] channels, String... patterns) {
		String address = sentinel.getHost() + ':' + sentinel.getPort();
		followed.asking(address);
		return Flux.usingWhen(
				Mono.defer(() -> Mono.fromCompletionStage(client.connectPubSubAsync(StringCodec.UTF8, sentinel)))
					.subscribeOn(OffEventLoop.SCHEDULER),
				connection -> Flux.merge(lost(connection),
						subscribed(connection, listener, channels, patterns).thenReturn(address)),
				connection -> Mono.fromCompletionStage(connection.closeAsync()))
			.doOnNext(followed::followed)
			.doOnError(error -> {
				if (error instanceof Lost) {
					followed.lost(address);
				}
				else {
					followed.refused(address, error);
				}
			})
			// transient: once followed, the next loss starts again from 1 s
			.retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofSeconds(1)).maxBackoff(Duration.ofSeconds(30))
				.transientErrors(true))
			.subscribe();
	}

	private static Mono<Void> subscribed(StatefulRedisPubSubConnection<String, String> connection,
			RedisPubSubListener<String, String> listener, String[] channels, String... patterns) {
		connection.addListener(listener);
		return Mono.fromCompletionStage(connection.async().subscribe(channels))
			.then(Mono.fromCompletionStage(connection.async().psubscribe(patterns)));
	}

	/** Fails with {@link Lost} once {@code connection} is disconnected (at once if it is already). */
	private static <T> Mono<T> lost(StatefulRedisPubSubConnection<String, String> connection) {
		return Mono.create(sink -> {
			RedisConnectionStateListener watch = new RedisConnectionStateListener() {

				@Override
				public void onRedisDisconnected(RedisChannelHandler<?, ?> disconnected) {
					sink.error(new Lost());
				}

			};
			connection.addListener(watch);
			sink.onDispose(() -> connection.removeListener(watch));
			if (!connection.isOpen()) {
				sink.error(new Lost());
			}
		});
	}

	/** The subscription's connection was lost: the Sentinel is not followed until a new one is subscribed. */
	static final class Lost extends RuntimeException {

		Lost() {
			super("the subscription's connection was lost", null, false, false);
		}

	}

}
