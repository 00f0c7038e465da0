package dev.mcprelay.session;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.ReactiveSubscription;
import org.springframework.stereotype.Component;

import dev.mcprelay.OffEventLoop;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SessionStoreKind;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.retry.Retry;

/**
 * The relay's subscriptions to channels of the shared store (Redis pub/sub): every one the relay holds is made here, so
 * that one mechanism keeps them all where the store is. Each channel gets a pub/sub connection of its own, made from
 * {@code spring.data.redis.*} (a server, Sentinel or a Cluster, with its credentials and TLS).
 * <ul>
 * <li>A channel is subscribed to once the relay is ready (one listened to later: at once), off the event loops
 * (connecting may block), and subscribed to again on a new connection, backing off from 1 s up to 30 s, whenever
 * connecting or subscribing fails or the subscription ends: a Redis that is down or refuses the password at start-up
 * leaves the relay up (and unready), never fails it. A connection Lettuce loses, Lettuce connects again (through
 * Sentinel, to the master the Sentinels name then) and subscribes again itself.</li>
 * <li>When the Sentinels name another master ({@link StoreMasterSwitched}), every channel is subscribed to again on a
 * new connection, which goes to the new master: a graceful failover leaves the old master running, connection and
 * all, and a subscription there hears nothing published on the new master until the Sentinels demote the old one, 10
 * to 15 s later. The new subscription is made first, then the old connection is closed (closed, not unsubscribed: the
 * old master may hang). What is published while the new connection connects and subscribes (a round trip or two) is
 * not heard.</li>
 * <li>The connections are closed when the relay stops; from just before Spring Data Redis stops its client, no
 * connection is opened any more, and the stop waits for one under way ({@link StoreConnectionAttempts}).</li>
 * </ul>
 * A message is handed on as it arrives, on a Redis I/O thread. With {@code sessions.store: memory} there is no store
 * and nothing is subscribed to.
 */
@Component
public class StoreChannels implements DisposableBean {

	private static final Logger log = LoggerFactory.getLogger(StoreChannels.class);

	private final ReactiveRedisConnectionFactory redis;

	private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();

	/** Set once the relay is ready: subscriptions are made from then on. */
	private boolean ready;

	/** Set once the relay stops: no subscription is made any more. */
	private boolean stopped;

	private final StoreConnectionAttempts attempts;

	StoreChannels(RelayProperties properties, ObjectProvider<ReactiveRedisConnectionFactory> redis,
			StoreConnectionAttempts attempts) {
		this.redis = properties.sessions().store() == SessionStoreKind.REDIS ? redis.getIfAvailable() : null;
		this.attempts = attempts;
	}

	/**
	 * Listens on {@code channel} from when the relay is ready until it stops, across failovers, each message (its
	 * UTF-8 text) handed to {@code received}, which must not block (it runs on a Redis I/O thread). Returns what
	 * completes once the channel is first subscribed to (at once without a store: there is nothing to hear).
	 */
	public synchronized Mono<Void> listen(String channel, Consumer<String> received) {
		if (redis == null) {
			return Mono.empty();
		}
		Subscription subscription = new Subscription(channel, received);
		subscriptions.add(subscription);
		if (ready && !stopped) {
			subscription.subscribe();
		}
		return subscription.listening.asMono();
	}

	@EventListener(ApplicationReadyEvent.class)
	synchronized void subscribe() {
		ready = true;
		if (!stopped) {
			subscriptions.forEach(Subscription::subscribe);
		}
	}

	/** Subscribes to every channel again on a new connection, which goes to the master the Sentinels name now. */
	@EventListener
	synchronized void follow(StoreMasterSwitched switched) {
		if (!ready || stopped) {
			return;
		}
		log.debug("The store's channels are subscribed to again on the new master {}", switched.address());
		subscriptions.forEach(Subscription::subscribe);
	}

	@Override
	public synchronized void destroy() {
		stopped = true;
		subscriptions.forEach(subscription -> subscription.current.dispose());
	}

	/** One channel: what hears it, and its subscription now. */
	private final class Subscription {

		private final String channel;

		private final Consumer<String> received;

		private final Sinks.Empty<Void> listening = Sinks.empty();

		/** The subscription now; replacing it cancels the one before, which closes its connection. */
		private final Disposable.Swap current = Disposables.swap();

		Subscription(String channel, Consumer<String> received) {
			this.channel = channel;
			this.received = received;
		}

		/** Makes a new subscription, then lets the one before go. */
		void subscribe() {
			current.update(messages().subscribe(this::hand, error -> {
				if (!(error instanceof StoreConnectionAttempts.Refused)) {
					log.warn("The store's channel {} is no longer listened to: {}", channel, error.toString());
				}
			}));
		}

		/** Hands {@code message} on; what fails there is logged, and the channel still listened to. */
		private void hand(String message) {
			try {
				received.accept(message);
			}
			catch (RuntimeException failed) {
				log.warn("A message of the store's channel {} was not handled: {}", channel, failed.toString());
			}
		}

		/**
		 * The channel's messages on a connection of their own, closed when they end; subscribed to again on a new
		 * connection when they fail or end, unless the relay is stopping ({@link StoreConnectionAttempts}: opening the
		 * connection is an attempt that runs to its end even when this is cancelled).
		 */
		private Flux<String> messages() {
			return Flux.usingWhen(attempts.open(subscribed(), Subscribed::close), this::heard, Subscribed::closeLater)
				.retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofSeconds(1))
					.maxBackoff(Duration.ofSeconds(30))
					.transientErrors(true)
					.filter(failed -> !(failed instanceof StoreConnectionAttempts.Refused))
					.doBeforeRetry(failed -> log.debug("The store's channel {} is subscribed to again: {}", channel,
							failed.failure().toString())));
		}

		/**
		 * A connection of the channel's own, for subscribing to it, opened off the event loops (connecting may block);
		 * closed again when it cannot be used.
		 */
		private Mono<Subscribed> subscribed() {
			return Mono.fromCallable(redis::getReactiveConnection)
				.flatMap(connection -> connection.pubSubCommands()
					.createSubscription()
					.map(subscription -> new Subscribed(connection, subscription))
					.onErrorResume(failed -> connection.closeLater().then(Mono.error(failed))))
				.subscribeOn(OffEventLoop.SCHEDULER);
		}

		/** Subscribes to the channel on {@code subscribed}'s connection: its messages, until the subscription ends. */
		private Flux<String> heard(Subscribed subscribed) {
			ByteBuffer name = ByteBuffer.wrap(channel.getBytes(StandardCharsets.UTF_8));
			return subscribed.subscription()
				.subscribe(name)
				.doOnSuccess(done -> listening.tryEmitEmpty())
				.thenMany(subscribed.subscription().receive())
				.map(message -> StandardCharsets.UTF_8.decode(message.getMessage()).toString())
				.concatWith(Mono.error(() -> new IllegalStateException("the subscription ended")));
		}

	}

	/** A pub/sub connection of a channel's own. */
	private record Subscribed(ReactiveRedisConnection connection, ReactiveSubscription subscription) {

		Mono<Void> closeLater() {
			return connection.closeLater();
		}

		/** Closes the connection, when nothing waits for it to be closed (an attempt whose subscriber left). */
		void close() {
			connection.closeLater().subscribe(null, failed -> log.debug("A store channel's connection did not close: {}",
					failed.toString()));
		}

	}

}
