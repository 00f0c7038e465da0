package dev.mcprelay.session;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConverters;
import org.springframework.stereotype.Component;

import dev.mcprelay.OffEventLoop;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SessionStoreKind;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * Moves the store's connections to the master the Sentinels name, as soon as they name it, and keeps the store unused
 * while they promote it. Subscribed to every Sentinel of {@code spring.data.redis.sentinel.nodes} (with their
 * credentials and TLS), for the master of {@code spring.data.redis.sentinel.master}:
 * <ul>
 * <li>{@value #PROMOTING} (the failover's leader picked the replica and sends it {@code REPLICAOF NO ONE} on its next
 * tick): the store is {@link #released held}. From the promotion on, the old master no longer replicates to anyone,
 * and in a graceful {@code SENTINEL FAILOVER} it still runs and takes writes until the Sentinels demote it, seconds
 * later, throwing them away; its users wait for the hold to end within their own bound (else fail with
 * {@link StoreHeldException} and answer as when Redis is away). The line that ends a hold says how long it lasted, how
 * many calls waited, and how many of them gave up first.</li>
 * <li>{@value #SWITCHED}: once the Sentinel that a new connection asks (the first of the configured ones that accepts
 * one, as Lettuce asks) names the same new master, Spring Data Redis's shared connections are closed, so that the next
 * command connects there, the store's other users are told ({@link StoreMasterSwitched}: the rate-limit buckets, the
 * store's channels) and the hold ends. Until that Sentinel has switched too (the others learn the new master from the
 * leader's hello messages), a new connection would be sent back to the old master: the switch waits for that
 * Sentinel's own {@value #SWITCHED}.</li>
 * <li>{@value #ABORTED}: the hold ends. It also ends {@link #MAX_HOLD} after it began, whatever the Sentinels say;
 * if they announced a new master that was not followed by then (no Sentinel named it when asked), the connections are
 * closed all the same before it ends, so that they ask the Sentinels again rather than stay on the old master.</li>
 * </ul>
 * The relay asks the Sentinels in the order of {@code spring.data.redis.sentinel.nodes}, each within the client's
 * command timeout (2 s unless {@code spring.data.redis.timeout} is set), and the next one when one does not answer, as
 * Lettuce does when it connects. Which Sentinels are followed, and why the others are not, is in
 * {@link FollowedSentinels} (the {@code relayStore} health; a refused subscription logged at WARN).
 * A connection to the master is never opened to find out who the master is (Lettuce's {@code MasterReplica} pings every
 * server the Sentinels list, a hung old master among them). A switch announced by several Sentinels is followed once.
 * Commands in flight on the closed connections fail (the store answers {@code session_store_unavailable}, a rate limit
 * its {@code on-store-failure}). Each Sentinel is subscribed to once the relay is ready, and again (backing off up to
 * 30 s) while it cannot be reached; Lettuce subscribes again after a dropped connection. Only with
 * {@code sessions.store: redis} through Sentinel; nothing otherwise.
 */
@Component
public class SentinelMasterSwitches implements StoreHold, DisposableBean {

	private static final Logger log = LoggerFactory.getLogger(SentinelMasterSwitches.class);

	/** The Sentinels' channel that names the new master: {@code <master> <old-ip> <old-port> <new-ip> <new-port>}. */
	static final String SWITCHED = "+switch-master";

	/**
	 * The Sentinels' channel that names the replica their leader is about to promote ({@code slave <id> <ip> <port> @
	 * <master> <ip> <port>}).
	 */
	static final String PROMOTING = "+failover-state-send-slaveof-noone";

	/** The Sentinels' channels that say a failover was given up ({@code master <master> <ip> <port>}). */
	static final String ABORTED = "-failover-abort-*";

	/**
	 * The longest the store is held: a failover that reconfigures many replicas, or a Sentinel the relay asks that does
	 * not learn the new master, would hold it for longer; it is then used again, wherever the Sentinels send it.
	 */
	static final Duration MAX_HOLD = Duration.ofSeconds(10);

	private final LettuceConnectionFactory redis;

	private final ApplicationEventPublisher events;

	private final FollowedSentinels followedSentinels;

	/** The last new master the Sentinels announced for the current hold, followed or not. */
	private final AtomicReference<String> announced = new AtomicReference<>();

	private final Disposable.Composite subscriptions = Disposables.composite();

	private final List<StatefulRedisPubSubConnection<String, String>> connections = new CopyOnWriteArrayList<>();

	/** The address of the last master this relay moved to. */
	private final AtomicReference<String> followed = new AtomicReference<>();

	/** The current hold; null while the store is not held. */
	private final AtomicReference<SwitchHold> hold = new AtomicReference<>();

	SentinelMasterSwitches(RelayProperties properties, ObjectProvider<LettuceConnectionFactory> redis,
			ApplicationEventPublisher events, FollowedSentinels followedSentinels) {
		LettuceConnectionFactory factory = properties.sessions().store() == SessionStoreKind.REDIS ? redis.getIfAvailable()
				: null;
		this.redis = factory != null && factory.isRedisSentinelAware() ? factory : null;
		this.events = events;
		this.followedSentinels = followedSentinels;
	}

	/** The hold of {@code switches}, where a bean follows the Sentinels; else a store that is never held. */
	public static StoreHold of(ObjectProvider<SentinelMasterSwitches> switches) {
		SentinelMasterSwitches followed = switches == null ? null : switches.getIfAvailable();
		return followed == null ? NEVER : followed;
	}

	@Override
	public Mono<Duration> released(Duration bound) {
		SwitchHold current = hold.get();
		return current == null ? NOT_HELD : current.released(bound);
	}

	/** Subscribes to each Sentinel once the relay is ready (never on an event loop: connecting may block). */
	@EventListener(ApplicationReadyEvent.class)
	void listen() {
		if (redis == null) {
			return;
		}
		String master = redis.getSentinelConfiguration().getRequiredMaster().getName();
		RedisClient client = (RedisClient) redis.getRequiredNativeClient();
		for (RedisURI sentinel : sentinels().getSentinels()) {
			String address = sentinel.getHost() + ':' + sentinel.getPort();
			followedSentinels.asking(address);
			subscriptions.add(Mono.defer(() -> Mono.fromCompletionStage(client.connectPubSubAsync(StringCodec.UTF8, sentinel)))
				.flatMap(connection -> subscribe(connection, master))
				.doOnNext(connection -> followedSentinels.followed(address))
				.doOnError(error -> followedSentinels.refused(address, error))
				.retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofSeconds(1)).maxBackoff(Duration.ofSeconds(30)))
				.subscribeOn(OffEventLoop.SCHEDULER)
				.subscribe(connections::add, error -> log.debug("Sentinel {} is not followed: {}", sentinel.getPort(),
						error.toString())));
		}
	}

	private Mono<StatefulRedisPubSubConnection<String, String>> subscribe(StatefulRedisPubSubConnection<String, String> connection,
			String master) {
		connection.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(String channel, String message) {
				if (SWITCHED.equals(channel)) {
					switched(master, message);
				}
				else if (PROMOTING.equals(channel)) {
					promoting(master, message);
				}
			}

			@Override
			public void message(String pattern, String channel, String message) {
				if (message.startsWith("master " + master + ' ')) {
					release("the Sentinels gave the failover up (" + channel + ")");
				}
			}

		});
		return Mono.fromCompletionStage(connection.async().subscribe(SWITCHED, PROMOTING))
			.then(Mono.fromCompletionStage(connection.async().psubscribe(ABORTED)))
			.thenReturn(connection)
			.onErrorResume(error -> Mono.fromCompletionStage(connection.closeAsync()).then(Mono.error(error)));
	}

	/**
	 * The Sentinels as Spring Data Redis connects to them (their credentials, TLS and timeout) in one URI, in the
	 * order Lettuce asks them for the master.
	 */
	private RedisURI sentinels() {
		LettuceClientConfiguration client = redis.getClientConfiguration();
		RedisURI uri = LettuceConverters.sentinelConfigurationToRedisURI(redis.getSentinelConfiguration());
		uri.setTimeout(client.getCommandTimeout());
		for (RedisURI sentinel : uri.getSentinels()) {
			sentinel.setSsl(client.isUseSsl());
			sentinel.setVerifyPeer(client.getVerifyMode());
			sentinel.setStartTls(client.isStartTls());
			sentinel.setTimeout(client.getCommandTimeout());
		}
		return uri;
	}

	/** Holds the store when {@code message} of {@value #PROMOTING} names a replica of {@code master}. */
	void promoting(String master, String message) {
		if (!message.contains(" @ " + master + ' ')) {
			return;
		}
		SwitchHold started = new SwitchHold();
		if (hold.compareAndSet(null, started)) {
			log.info("The Sentinels are promoting a replica of '{}': calls to the store wait until they name it master "
					+ "(at most {} s), each within its own bound (past it, answered as when Redis is away)", master,
					MAX_HOLD.toSeconds());
			subscriptions.add(Mono.delay(MAX_HOLD)
				.subscribe(unused -> expire(started, master, "the Sentinels named no new master within " + MAX_HOLD.toSeconds()
						+ " s")));
		}
	}

	/**
	 * Ends {@code expired} at {@link #MAX_HOLD}: when the Sentinels announced a new master that was not followed, the
	 * store's connections are closed first (and its other users told), so that they ask the Sentinels again instead
	 * of writing on to the old master, which a graceful failover demotes and empties.
	 */
	private void expire(Object expired, String master, String why) {
		String unfollowed = announced.get();
		if (hold.get() == expired && unfollowed != null && !unfollowed.equals(followed.get())) {
			log.warn("No Sentinel asked named {} the master of '{}' within {} s of its announcement: the store's "
					+ "connections ask the Sentinels again", unfollowed, master, MAX_HOLD.toSeconds());
			try {
				redis.resetConnection();
				events.publishEvent(new StoreMasterSwitched(master, unfollowed));
			}
			catch (RuntimeException error) {
				log.warn("The store's connections could not be closed: {}", error.toString());
			}
		}
		release(why);
	}

	/** Ends the current hold, if any. */
	private void release(String why) {
		SwitchHold current = hold.get();
		if (current != null) {
			end(current, why);
		}
	}

	/**
	 * Ends {@code ended} if it is still the current hold: its waiters go on off the event loops, and the log says how
	 * long it lasted and what became of the calls that waited.
	 */
	private void end(SwitchHold ended, String why) {
		if (hold.compareAndSet(ended, null)) {
			log.info("The store is used again: {} ({})", why, ended.end());
		}
	}

	/**
	 * Follows {@code message} of {@value #SWITCHED} when it names a new address for {@code master} and the Sentinel a
	 * new connection asks names it too; otherwise waits for that Sentinel's own announcement.
	 */
	void switched(String master, String message) {
		String[] parts = message.split(" ");
		if (parts.length != 5 || !parts[0].equals(master)) {
			return;
		}
		String address = parts[3] + ':' + parts[4];
		if (address.equals(followed.get())) {
			return;
		}
		announced.set(address);
		Mono.fromRunnable(() -> follow(master, address))
			.subscribeOn(OffEventLoop.SCHEDULER)
			.subscribe(null, error -> log.warn("The store's connections could not be moved to the new master {}: {}",
					address, error.toString()));
	}

	/** One switch at a time: asks the Sentinels (blocking, off the event loops), then moves the connections. */
	private synchronized void follow(String master, String address) {
		if (address.equals(followed.get())) {
			return;
		}
		String asked = namedMaster(master);
		if (!address.equals(asked)) {
			log.debug("The Sentinel a new connection asks still names {} the master of '{}', not {}: waiting for it",
					asked, master, address);
			return;
		}
		followed.set(address);
		log.info("The Sentinels named {} the master of '{}': the store's connections now go there", address, master);
		try {
			redis.resetConnection();
			events.publishEvent(new StoreMasterSwitched(master, address));
		}
		finally {
			release("its connections go to the new master " + address);
		}
	}

	/**
	 * The master's {@code host:port} as the first Sentinel that answers names it, which is where Lettuce connects the
	 * next connection to: the Sentinels are asked in turn, each within the client's command timeout, the next one when
	 * one fails or does not answer in time (as Lettuce goes on to the next when a handshake times out); null when none
	 * answers.
	 */
	private String namedMaster(String master) {
		RedisClient client = (RedisClient) redis.getRequiredNativeClient();
		return Flux.fromIterable(sentinels().getSentinels())
			.concatMap(sentinel -> Mono.usingWhen(
					Mono.fromCompletionStage(() -> client.connectSentinelAsync(StringCodec.UTF8, sentinel)),
					connection -> connection.reactive().getMasterAddrByName(master)
						.cast(InetSocketAddress.class)
						.map(named -> named.getHostString() + ':' + named.getPort()),
					connection -> Mono.fromCompletionStage(connection.closeAsync()))
				.timeout(sentinel.getTimeout())
				.onErrorResume(error -> {
					log.warn("Sentinel {}:{} did not name the master of '{}': {}", sentinel.getHost(), sentinel.getPort(),
							master, FollowedSentinels.reason(error));
					return Mono.empty();
				}), 1)
			.next()
			.block();
	}

	@Override
	public void destroy() {
		subscriptions.dispose();
		connections.forEach(StatefulRedisPubSubConnection::closeAsync);
		release("the relay stops");
	}

}
