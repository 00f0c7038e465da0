package dev.mcprelay.session;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.stereotype.Component;

import dev.mcprelay.OffEventLoop;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SessionStoreKind;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;

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
 * Lettuce does when it connects ({@link ConfiguredSentinels}); no thread waits for their answer. Which Sentinels are
 * followed, and why the others are not, is in {@link FollowedSentinels} (the {@code relayStore} health; a refused
 * subscription logged at WARN).
 * A connection to the master is never opened to find out who the master is (Lettuce's {@code MasterReplica} pings every
 * server the Sentinels list, a hung old master among them). A switch announced by several Sentinels is followed once.
 * Commands in flight on the closed connections fail (the store answers {@code session_store_unavailable}, a rate limit
 * its {@code on-store-failure}). Each Sentinel is subscribed to once the relay is ready, and again (backing off up to
 * 30 s) while it refuses or cannot be reached, and after its subscription's connection is lost
 * ({@link SentinelSubscription}). Only with
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

	/** The Sentinels as Lettuce asks them for the master; null when the store does not use Sentinel. */
	private final ConfiguredSentinels sentinels;

	/**
	 * The new masters the Sentinels announce, followed one at a time; while one is followed, only the latest waits
	 * (an older one is followed already, or superseded). Set once the relay is ready.
	 */
	private volatile FluxSink<String> announcements;

	private final ApplicationEventPublisher events;

	private final FollowedSentinels followedSentinels;

	/**
	 * The last new master the Sentinels announced for the current hold, followed or not; cleared when a hold begins.
	 */
	private final AtomicReference<String> announced = new AtomicReference<>();

	private final Disposable.Composite subscriptions = Disposables.composite();

	/**
	 * The master this relay moved the store's connections to since the last promotion began; cleared when a hold begins,
	 * so that it never names a master from before a failover the relay did not follow (after one, Lettuce's own
	 * reconnection may have moved the connections elsewhere, and a switch back to that master must be followed).
	 * It only spares the duplicate announcements of one switch (each Sentinel sends its own).
	 */
	private final AtomicReference<String> followed = new AtomicReference<>();

	/** The current hold; null while the store is not held. */
	private final AtomicReference<SwitchHold> hold = new AtomicReference<>();

	SentinelMasterSwitches(RelayProperties properties, ObjectProvider<LettuceConnectionFactory> redis,
			ApplicationEventPublisher events, FollowedSentinels followedSentinels) {
		LettuceConnectionFactory factory = properties.sessions().store() == SessionStoreKind.REDIS ? redis.getIfAvailable()
				: null;
		this.redis = factory != null && factory.isRedisSentinelAware() ? factory : null;
		this.sentinels = this.redis == null ? null : new ConfiguredSentinels(this.redis);
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
		subscriptions.add(Flux.<String>create(sink -> announcements = sink, FluxSink.OverflowStrategy.LATEST)
			.concatMap(address -> follow(master, address), 0)
			.subscribe());
		SentinelFailoverMessages failovers = new SentinelFailoverMessages(this, master);
		for (RedisURI sentinel : sentinels.each()) {
			subscriptions.add(SentinelSubscription.follow(client, sentinel, failovers, followedSentinels,
					new String[] { SWITCHED, PROMOTING }, ABORTED));
		}
	}

	/** Holds the store when {@code message} of {@value #PROMOTING} names a replica of {@code master}. */
	void promoting(String master, String message) {
		if (!message.contains(" @ " + master + ' ')) {
			return;
		}
		SwitchHold started = new SwitchHold();
		if (hold.compareAndSet(null, started)) {
			followed.set(null);
			announced.set(null);
			log.info("The Sentinels are promoting a replica of '{}': calls to the store wait until they name it master "
					+ "(at most {} s), each within its own bound (past it, answered as when Redis is away)", master,
					MAX_HOLD.toSeconds());
			subscriptions.add(Mono.delay(MAX_HOLD)
				.publishOn(OffEventLoop.SCHEDULER)
				.subscribe(unused -> expire(started, master, "the Sentinels named no new master within " + MAX_HOLD.toSeconds()
						+ " s")));
		}
	}

	/**
	 * Ends {@code expired} at {@link #MAX_HOLD}: when the Sentinels announced a new master that was not followed, the
	 * store's connections are closed first (and its other users told), so that they ask the Sentinels again instead
	 * of writing on to the old master, which a graceful failover demotes and empties. Runs off the event loops and
	 * Reactor's timer threads (closing the connections waits for them to close); ends {@code expired} whatever
	 * happens, and only if it is still the current hold.
	 */
	private void expire(SwitchHold expired, String master, String why) {
		String unfollowed = announced.get();
		try {
			if (hold.get() == expired && unfollowed != null && !unfollowed.equals(followed.get())) {
				log.warn("No Sentinel asked named {} the master of '{}' within {} s of its announcement: the store's "
						+ "connections ask the Sentinels again", unfollowed, master, MAX_HOLD.toSeconds());
				redis.resetConnection();
				events.publishEvent(new StoreMasterSwitched(master, unfollowed));
			}
		}
		catch (RuntimeException error) {
			log.warn("The store's connections could not be closed: {}", error.toString());
		}
		finally {
			end(expired, why);
		}
	}

	/** Ends the current hold when {@code message} of {@value #ABORTED} ({@code channel}) is about {@code master}. */
	void aborted(String master, String channel, String message) {
		if (message.startsWith("master " + master + ' ')) {
			release("the Sentinels gave the failover up (" + channel + ")");
		}
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
		announcements.next(address);
	}

	/**
	 * Follows {@code address} unless it is followed already: asks the Sentinels (no thread waits for them), then, off
	 * the event loops, moves the connections if the one that answers first names it. Never fails (a failure is logged),
	 * so that the next announcement is followed too; the announcements' {@code concatMap} makes it one at a time.
	 */
	private Mono<Void> follow(String master, String address) {
		return Mono.defer(() -> address.equals(followed.get()) ? Mono.<String>empty()
				: sentinels.namedMaster(master).defaultIfEmpty(""))
			.subscribeOn(OffEventLoop.SCHEDULER)
			.publishOn(OffEventLoop.SCHEDULER)
			.doOnNext(named -> moveTo(master, address, named))
			.then()
			.onErrorResume(error -> {
				log.warn("The store's connections could not be moved to the new master {}: {}", address, error.toString());
				return Mono.empty();
			});
	}

	/** Moves the connections to {@code address} if the Sentinel asked {@code named} it (else waits for its switch). */
	private void moveTo(String master, String address, String named) {
		if (!address.equals(named)) {
			log.debug("The Sentinel a new connection asks names {} the master of '{}', not {}: waiting for it",
					named.isEmpty() ? "no one" : named, master, address);
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
	 * Stops following the Sentinels as the relay begins to stop, before the store's connection factory stops and
	 * closes its client's connections (which would otherwise read as subscriptions lost, and be tried again).
	 */
	@EventListener(ContextClosedEvent.class)
	void stopFollowing(ContextClosedEvent closed) {
		// the context publishes its events through itself: a child context's closing is not the relay's
		if (closed.getApplicationContext() == events) {
			subscriptions.dispose();
		}
	}

	@Override
	public void destroy() {
		subscriptions.dispose();
		release("the relay stops");
	}

}
