package dev.mcprelay.session;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * <li>{@value SentinelFailoverMessages#PROMOTING} (the failover's leader picked the replica and sends it
 * {@code REPLICAOF NO ONE} on its next tick): the store is {@link #released held}. From the promotion on, the old
 * master no longer replicates to anyone, and in a graceful {@code SENTINEL FAILOVER} it still runs and takes writes
 * until the Sentinels demote it, seconds later, throwing them away; its users wait for the hold to end within their own
 * bound (else fail with {@link StoreHeldException} and answer as when Redis is away). The line that ends a hold says
 * how long it lasted, how many calls waited, and how many of them gave up first.</li>
 * <li>{@value SentinelFailoverMessages#SWITCHED}: once the Sentinel that a new connection asks (the first of the
 * configured ones that accepts one, as Lettuce asks) names the same new master, Spring Data Redis's shared connections
 * are closed, so that the next command connects there, the store's other users are told ({@link StoreMasterSwitched}:
 * the rate-limit buckets, the store's channels) and the hold ends. Until that Sentinel has switched too (the others
 * learn the new master from the leader's hello messages), a new connection would be sent back to the old master: the
 * switch waits for that Sentinel's own {@value SentinelFailoverMessages#SWITCHED}.</li>
 * <li>{@value SentinelFailoverMessages#ABORTED}: the hold ends. It also ends {@link #MAX_HOLD} after it began,
 * whatever the Sentinels say; if they announced a new master that was not followed by then (no Sentinel named it when
 * asked), the connections are closed all the same before it ends, so that they ask the Sentinels again rather than
 * stay on the old master. If they announced none (the relay's subscriptions lost during the hold), the Sentinels are
 * asked, and a master they name other than the one the promotion was from is moved to as if announced; so they are
 * whenever a Sentinel is subscribed to again during a hold.</li>
 * </ul>
 * Outside a hold, a failover the relay did not follow (it followed no Sentinel then) is caught up with by the
 * {@link MasterCatchUp}: whenever a Sentinel takes a subscription, and whenever the store answers a write
 * {@code READONLY}, the Sentinels are asked, and the connections moved if they name another master.
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

	private final CurrentHold hold = new CurrentHold(log);

	/** The failovers missed outside a hold caught up with; null when the store does not use Sentinel. */
	private final MasterCatchUp catchUp;

	/**
	 * The client the Sentinels are subscribed to and asked through, without Lettuce's auto-reconnect
	 * ({@link SentinelSubscription#ownClient}); set once the relay is ready, shut down when it stops.
	 */
	private volatile RedisClient client;

	private final AtomicBoolean stopped = new AtomicBoolean();

	SentinelMasterSwitches(RelayProperties properties, ObjectProvider<LettuceConnectionFactory> redis,
			ApplicationEventPublisher events, FollowedSentinels followedSentinels) {
		LettuceConnectionFactory factory = properties.sessions().store() == SessionStoreKind.REDIS ? redis.getIfAvailable()
				: null;
		this.redis = factory != null && factory.isRedisSentinelAware() ? factory : null;
		this.sentinels = this.redis == null ? null : new ConfiguredSentinels(this.redis);
		this.events = events;
		this.followedSentinels = followedSentinels;
		String master = this.redis == null ? null : this.redis.getSentinelConfiguration().getRequiredMaster().getName();
		this.catchUp = this.redis == null ? null : new MasterCatchUp(master, sentinels, MasterLineage.of(this.redis), () -> client,
				() -> hold.get() != null, named -> {
					followed.set(named);
					reset(master, named);
				}, new StoreWriteCheck(this.redis));
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
		RedisClient client = SentinelSubscription.ownClient((RedisClient) redis.getRequiredNativeClient());
		this.client = client;
		subscriptions.add(Flux.<String>create(sink -> announcements = sink, FluxSink.OverflowStrategy.LATEST)
			.concatMap(address -> follow(master, address), 0)
			.subscribe());
		SentinelFailoverMessages failovers = new SentinelFailoverMessages(this, master);
		for (RedisURI sentinel : sentinels.each()) {
			subscriptions.add(SentinelSubscription.follow(client, sentinel, failovers, followedSentinels,
					new String[] { SentinelFailoverMessages.SWITCHED, SentinelFailoverMessages.PROMOTING },
					SentinelFailoverMessages.ABORTED));
		}
	}

	/**
	 * Holds the store: the Sentinels promote a replica of {@code master}, now at {@code from} ({@code host:port}; null
	 * when not said).
	 */
	void promoting(String master, String from) {
		SwitchHold started = hold.begin(from);
		if (started != null) {
			followed.set(null);
			announced.set(null);
			log.info("The Sentinels are promoting a replica of '{}': calls to the store wait until they name it master "
					+ "(at most {} s), each within its own bound (past it, answered as when Redis is away)", master,
					MAX_HOLD.toSeconds());
			subscriptions.add(Mono.delay(MAX_HOLD)
				.publishOn(OffEventLoop.SCHEDULER)
				.flatMap(unused -> expire(started, master))
				.subscribe());
		}
	}

	/**
	 * Ends {@code expired} at {@link #MAX_HOLD}, and only if it is still the current hold: when the Sentinels announced
	 * a new master that was not followed, the store's connections are closed first (and its other users told), so that
	 * they ask the Sentinels again instead of writing on to the old master, which a graceful failover demotes and
	 * empties. When nothing was announced (the relay's subscriptions may have been lost during the hold), the
	 * Sentinels are asked ({@link #missed}) first, which may end it up to one command timeout per Sentinel later. Runs
	 * off the event loops and Reactor's timer threads (closing the connections waits for them to close); ends
	 * {@code expired} whatever happens.
	 */
	private Mono<Void> expire(SwitchHold expired, String master) {
		String unfollowed = announced.get();
		return (unfollowed == null ? missed(expired, master) : Mono.<Void>fromRunnable(() -> {
			if (hold.get() == expired && !unfollowed.equals(followed.get())) {
				log.warn("No Sentinel asked named {} the master of '{}' within {} s of its announcement: the store's "
						+ "connections ask the Sentinels again", unfollowed, master, MAX_HOLD.toSeconds());
				reset(master, unfollowed);
			}
		})).onErrorResume(error -> {
			log.warn("The store's connections could not be closed: {}", error.toString());
			return Mono.empty();
		}).doFinally(signal -> hold.end(expired, "the Sentinels named no new master within " + MAX_HOLD.toSeconds() + " s"));
	}

	/**
	 * Catches up with a switch the relay may have missed during {@code current} (none announced: the subscriptions
	 * lost before the Sentinels announced it): asks the Sentinels ({@link ConfiguredSentinels#namedMaster}), and when
	 * they name a master other than the one the hold began on, moves the store's connections there as for an
	 * announced switch (which ends the hold). Runs at {@link #MAX_HOLD}, and whenever a Sentinel is subscribed to
	 * while the store is held ({@link #subscribed}). Nothing when the hold ended meanwhile, the promotion named no old
	 * master, or no Sentinel answers. Completes off the event loops; fails only if the connections cannot be closed.
	 */
	private Mono<Void> missed(SwitchHold current, String master) {
		if (current.from() == null || announced.get() != null) {
			return Mono.empty();
		}
		return sentinels.namedMaster(client, master)
			.publishOn(OffEventLoop.SCHEDULER)
			.filter(named -> hold.get() == current && announced.get() == null && !named.equals(current.from()))
			.doOnNext(named -> {
				log.warn("The Sentinels name {} the master of '{}', not {} which they were promoting a replica of, "
						+ "though the relay saw no switch announced: it catches up", named, master, current.from());
				moveTo(master, named, named);
			})
			.then();
	}

	/**
	 * A Sentinel took the relay's subscription (at start-up, or again after it was lost): a switch announced while it
	 * was not followed would be missed, so the Sentinels are asked: while the store is held, for the hold
	 * ({@link #missed}), else by the {@link MasterCatchUp}, which moves the connections if they name another master
	 * than the relay's (review 45h H-1). Called on the subscription's event loop; never blocks (the question runs off
	 * it).
	 */
	void subscribed(String master) {
		SwitchHold current = hold.get();
		if (current == null) {
			catchUp.subscribed();
			return;
		}
		missed(current, master).subscribeOn(OffEventLoop.SCHEDULER)
			.subscribe(null, error -> log.warn("The store's connections could not be moved to the master the "
					+ "Sentinels name: {}", error.toString()));
	}

	/**
	 * A call to the store failed: a {@code READONLY} answer (the connections on a demoted old master) has the
	 * {@link MasterCatchUp} move them to the master the Sentinels name (review 45h H-2). Never blocks.
	 */
	@Override
	public void failed(Throwable error) {
		if (catchUp != null) {
			catchUp.failed(error);
		}
	}

	/**
	 * Why the store refuses writes while the relay cannot move its connections off a replica ({@link MasterCatchUp});
	 * null while it does not, or without Sentinel.
	 */
	String refusingWrites() {
		return catchUp == null ? null : catchUp.refusingWrites();
	}

	/** Whether the store refuses writes although the Sentinels answered ({@link MasterCatchUp}). */
	boolean refusingDespiteTheSentinels() {
		return catchUp != null && catchUp.refusingDespiteTheSentinels();
	}

	/**
	 * Ends the current hold if the failover given up ({@code channel}) is about the master it holds for: {@code
	 * about}, the address the message names, is the hold's {@link SwitchHold#from} (or either is not known). A Sentinel's
	 * own aborted attempt on another address (a misconfigured one: review 45l L-3) is ignored, logged at DEBUG.
	 */
	void aborted(String channel, String about) {
		SwitchHold current = hold.get();
		if (current != null && current.from() != null && about != null && !current.from().equals(about)) {
			log.debug("A Sentinel gave up a failover of {} ({}), not of {} which the store is held for: still held", about,
					channel, current.from());
			return;
		}
		hold.release("the Sentinels gave the failover up (" + channel + ")");
	}

	/**
	 * Follows the Sentinels' announcement that {@code address} is {@code master}'s new master, once the Sentinel a new
	 * connection asks names it too; otherwise waits for that Sentinel's own announcement.
	 */
	void switched(String master, String address) {
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
				: sentinels.namedMaster(client, master).defaultIfEmpty(""))
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
			reset(master, address);
		}
		finally {
			hold.release("its connections go to the new master " + address);
		}
	}

	/** Closes the store's connections, so that their next command asks the Sentinels, and tells its other users. */
	private void reset(String master, String address) {
		catchUp.moved(address);
		redis.resetConnection();
		events.publishEvent(new StoreMasterSwitched(master, address));
	}

	/**
	 * Stops following the Sentinels as the relay begins to stop, before the store's connection factory stops and
	 * closes its client's connections (which would otherwise read as subscriptions lost, and be tried again).
	 */
	@EventListener(ContextClosedEvent.class)
	void stopFollowing(ContextClosedEvent closed) {
		// the context publishes its events through itself: a child context's closing is not the relay's
		if (closed.getApplicationContext() == events) {
			stop();
		}
	}

	@Override
	public void destroy() {
		stop();
		hold.release("the relay stops");
	}

	/**
	 * Disposes the subscriptions (which stops watching their connections), and only then shuts the Sentinels' client
	 * down, closing them: shut down first, it closed subscriptions still watched, each then logged as lost (review 45h
	 * H-5). Idempotent.
	 */
	private void stop() {
		subscriptions.dispose();
		if (catchUp != null) {
			catchUp.stop();
		}
		RedisClient own = client;
		if (own != null && stopped.compareAndSet(false, true)) {
			own.shutdownAsync(0, 2, TimeUnit.SECONDS);
		}
	}

}
