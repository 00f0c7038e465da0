package dev.mcprelay.session;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ThreadLocalRandom;

import dev.mcprelay.OffEventLoop;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
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
 * (WARN), and a new connection is subscribed, backing off from 1 s while it fails (each refusal reported to
 * {@link FollowedSentinels#refused}), up to 4 s while the Sentinel cannot be reached, up to 30 s while it refuses or
 * does not answer in time, until it is followed again; the backoff starts from 1 s again only once a subscription
 * answers several checks in a row in time ({@link SubscriptionBackoff}), so a Sentinel whose subscriptions each go
 * silent (or late now and then) soon after they are taken is tried less and less often, and a Sentinel back after a
 * restart or a cut path is followed again within seconds.
 *
 * <p>A subscribed connection carries nothing while the Sentinel has nothing to announce, so a path that stops carrying
 * packets without closing (a NAT or load balancer that forgot an idle flow, a partition, a stopped Sentinel) would look
 * like a quiet Sentinel for ever. So each subscribed connection is sent a {@code PING} (allowed while subscribed) every
 * {@link #checkInterval interval} (the Sentinel's command timeout, 2 s unless {@code spring.data.redis.timeout} says
 * otherwise, at least 1 s), and one not answered within that timeout is taken as lost, as above: a silent
 * subscription is noticed within twice the timeout. Any answer counts, a refusal too ({@code NOPERM} for a user not
 * granted {@code +ping}): it shows the path works (but each refusal is recorded in the Sentinel's {@code ACL LOG}, so the
 * first is logged: {@link FollowedSentinels#pingRefused}). Connecting runs off the event loops (it may block); nothing waits
 * for an answer. Never fails; disposing it closes the connection.
 */
final class SentinelSubscription {

	/** The shortest interval between two checks of a subscribed connection. */
	private static final Duration MIN_CHECK_INTERVAL = Duration.ofSeconds(1);

	/** How a connection closed under the subscription is reported. */
	private static final String CLOSED = "its connection was closed";

	private SentinelSubscription() {
	}

	/**
	 * The client for the relay's own Sentinel subscriptions: {@code shared}'s resources (event loops, timers) and
	 * options, without Lettuce's auto-reconnect, as the relay subscribes again itself. With auto-reconnect, a connection whose
	 * handshake timed out after the relay gave it up was reconnected by a Lettuce watchdog for ever, never checked,
	 * never subscribed, in no health (review 45g G-3). The caller shuts it down once its subscriptions are disposed,
	 * which closes its connections and leaves the shared resources running.
	 */
	static RedisClient ownClient(RedisClient shared) {
		RedisClient own = RedisClient.create(shared.getResources());
		own.setOptions(shared.getOptions().mutate().autoReconnect(false).build());
		return own;
	}

	/**
	 * Keeps {@code sentinel}'s {@code channels} and {@code patterns} delivered to {@code listener} through a connection
	 * of {@code client}, and {@code followed} told whether they are, until the returned subscription is disposed.
	 */
	static Disposable follow(RedisClient client, RedisURI sentinel, RedisPubSubListener<String, String> listener,
			FollowedSentinels followed, String[] channels, String... patterns) {
		String address = sentinel.getHost() + ':' + sentinel.getPort();
		followed.asking(address);
		SubscriptionBackoff backoff = new SubscriptionBackoff();
		return Flux.usingWhen(
				Mono.defer(() -> Mono.fromCompletionStage(client.connectPubSubAsync(StringCodec.UTF8, sentinel)))
					.subscribeOn(OffEventLoop.SCHEDULER),
				connection -> Flux.merge(lost(connection),
						subscribed(connection, listener, channels, patterns).thenReturn(address)
							.concatWith(answering(connection, sentinel.getTimeout(), address, followed, backoff))),
				connection -> Mono.fromCompletionStage(connection.closeAsync()))
			.doOnNext(followed::followed)
			.doOnError(error -> {
				if (error instanceof Lost lost) {
					followed.lost(address, lost.getMessage());
				}
				else {
					followed.refused(address, error);
				}
			})
			// from 1 s again only after a subscription that answered checks in time, several in a row (SubscriptionBackoff)
			.retryWhen(Retry.from(failures -> failures.concatMap(failure -> {
				boolean unreachable = unreachable(failure.failure());
				return Mono.delay(jittered(backoff.next(unreachable), SubscriptionBackoff.max(unreachable)));
			})))
			.subscribe();
	}

	/**
	 * {@code wait} and up to half as much again; past {@code max}, {@code max} less up to a quarter of it: relays do
	 * not retry in step, also at the longest wait (review 45h H-3: at the cap every relay waited exactly 30 s).
	 */
	static Duration jittered(Duration wait, Duration max) {
		Duration jittered = wait.plusMillis(ThreadLocalRandom.current().nextLong(wait.toMillis() / 2 + 1));
		return jittered.compareTo(max) <= 0 ? jittered
				: max.minusMillis(ThreadLocalRandom.current().nextLong(max.toMillis() / 4 + 1));
	}

	/**
	 * Whether {@code failure} says the Sentinel could not be reached (its connection refused, reset or closed), as
	 * opposed to a Sentinel that answered but refused, or did not answer in time.
	 */
	static boolean unreachable(Throwable failure) {
		if (failure instanceof Lost lost) {
			return lost.closed;
		}
		for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
			if (cause instanceof RedisCommandExecutionException || cause instanceof RedisCommandTimeoutException
					|| cause instanceof TimeoutException) {
				return false;
			}
		}
		for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
			String message = cause.getMessage();
			// Lettuce's words for a connection closed under a command: "Connection closed prematurely", "Connection
			// disconnected"
			if (cause instanceof IOException || (message != null
					&& (message.contains("Connection closed") || message.contains("Connection disconnected")))) {
				return true;
			}
		}
		return false;
	}

	private static Mono<Void> subscribed(StatefulRedisPubSubConnection<String, String> connection,
			RedisPubSubListener<String, String> listener, String[] channels, String... patterns) {
		connection.addListener(listener);
		return Mono.fromCompletionStage(connection.async().subscribe(channels))
			.then(Mono.fromCompletionStage(connection.async().psubscribe(patterns)));
	}

	/**
	 * How often a subscribed connection is checked ({@link #answering}): the Sentinel's command {@code timeout}, at least
	 * 1 s.
	 */
	static Duration checkInterval(Duration timeout) {
		return timeout.compareTo(MIN_CHECK_INTERVAL) < 0 ? MIN_CHECK_INTERVAL : timeout;
	}

	/**
	 * Never completes: sends {@code connection} a {@code PING} every {@link #checkInterval}, and fails with {@link Lost}
	 * when one is not answered within {@code timeout} (any answer counts, an error reply too; a refusal is reported to
	 * {@link FollowedSentinels#pingRefused}, which says once what to grant).
	 */
	private static <T> Mono<T> answering(StatefulRedisPubSubConnection<String, String> connection, Duration timeout,
			String address, FollowedSentinels followed, SubscriptionBackoff backoff) {
		return Mono.delay(checkInterval(timeout))
			.then(Mono.defer(() -> Mono.fromCompletionStage(connection.async().ping()))
				.onErrorResume(RedisCommandExecutionException.class, refused -> {
					followed.pingRefused(address, refused);
					return Mono.just("refused, but answered");
				})
				.timeout(timeout)
				.onErrorMap(silent -> new Lost("it answered no PING within " + timeout.toMillis()
						+ " ms: a stopped Sentinel, or a path that drops packets without closing the connection", false))
				.doOnNext(answered -> backoff.answered()))
			.repeat()
			.then(Mono.never());
	}

	/** Fails with {@link Lost} once {@code connection} is disconnected (at once if it is already). */
	private static <T> Mono<T> lost(StatefulRedisPubSubConnection<String, String> connection) {
		return Mono.create(sink -> {
			RedisConnectionStateListener watch = new RedisConnectionStateListener() {

				@Override
				public void onRedisDisconnected(RedisChannelHandler<?, ?> disconnected) {
					sink.error(new Lost(CLOSED, true));
				}

			};
			connection.addListener(watch);
			sink.onDispose(() -> connection.removeListener(watch));
			if (!connection.isOpen()) {
				sink.error(new Lost(CLOSED, true));
			}
		});
	}

	/**
	 * The subscription's connection was lost (its message says how): the Sentinel is not followed until a new one is
	 * subscribed.
	 */
	static final class Lost extends RuntimeException {

		/** Whether its connection was closed (else it went silent). */
		final boolean closed;

		Lost(String how, boolean closed) {
			super(how, null, false, false);
			this.closed = closed;
		}

	}

}
