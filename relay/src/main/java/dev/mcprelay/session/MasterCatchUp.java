package dev.mcprelay.session;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.mcprelay.OffEventLoop;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisReadOnlyException;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;

/**
 * Catches the store's connections up with a failover the relay did not follow (outside a hold: {@link
 * SentinelMasterSwitches} catches up inside one itself): it asks the Sentinels for the master
 * ({@link ConfiguredSentinels#namedMaster}) and moves the connections there when they name another one than the
 * connections go to. Asked on two signs that the relay may have missed one:
 * <ul>
 * <li>a Sentinel's subscription taken, at start-up or again after it was lost ({@link #subscribed}): a failover
 * announced while the relay followed no Sentinel went unseen (review 45h H-1); the first answer is only remembered, as
 * the master the connections went to;</li>
 * <li>the store answering a write {@code READONLY} ({@link #failed}): its connections go to a replica, the demoted old
 * master, which Lettuce reconnects to when it cannot reach a Sentinel (review 45h H-2: stuck there until the next
 * failover); the connections are moved to the master the Sentinels name, whichever it is. Until they are, the store
 * {@link #refusingWrites refuses writes} (the readiness says so) and the Sentinels are asked again every
 * {@link #INTERVAL}.</li>
 * </ul>
 * One question at a time, none during a hold (asked again after it while the store refuses writes), and a
 * {@code READONLY} answered within {@link #INTERVAL} of a move (a call in flight on the connections moved away from)
 * asks nothing. Never blocks the caller; never fails (a failure is logged).
 */
final class MasterCatchUp {

	private static final Logger log = LoggerFactory.getLogger(MasterCatchUp.class);

	/** How often the Sentinels are asked while the store refuses writes, and how long after a move it is not asked. */
	static final Duration INTERVAL = Duration.ofSeconds(2);

	private final String master;

	private final ConfiguredSentinels sentinels;

	private final Supplier<RedisClient> client;

	private final BooleanSupplier held;

	private final Consumer<String> move;

	/** The next question while the store refuses writes. */
	private final Disposable.Swap retry = Disposables.swap();

	/** The master the store's connections go to, as far as the relay knows; null until first known. */
	private final AtomicReference<String> current = new AtomicReference<>();

	/** Why the store refuses writes, while it does; else null. */
	private final AtomicReference<String> refusing = new AtomicReference<>();

	private final AtomicBoolean asking = new AtomicBoolean();

	/** When the connections were last moved ({@link System#nanoTime}). */
	private final AtomicLong movedAt = new AtomicLong(System.nanoTime() - INTERVAL.toNanos());

	/**
	 * @param client the client the Sentinels are asked through (one that does not reconnect on its own)
	 * @param held whether the store is held now (a catch-up then is the hold's)
	 * @param move moves the store's connections to the master named (closes them and tells the store's other users)
	 */
	MasterCatchUp(String master, ConfiguredSentinels sentinels, Supplier<RedisClient> client, BooleanSupplier held,
			Consumer<String> move) {
		this.master = master;
		this.sentinels = sentinels;
		this.client = client;
		this.held = held;
		this.move = move;
	}

	/** The store's connections were moved to {@code address} (an announced switch followed, or a catch-up). */
	void moved(String address) {
		current.set(address);
		movedAt.set(System.nanoTime());
		if (refusing.getAndSet(null) != null) {
			log.info("The store's connections go to the master the Sentinels name, {}: writes are taken again", address);
		}
	}

	/** A Sentinel took the relay's subscription while the store was not held: asks whether a failover was missed. */
	void subscribed() {
		ask();
	}

	/**
	 * A call to the store failed with {@code error}: a {@code READONLY} answer makes the store refuse writes until its
	 * connections go to the master the Sentinels name; anything else is not this class's business.
	 */
	void failed(Throwable error) {
		if (!readOnly(error) || System.nanoTime() - movedAt.get() < INTERVAL.toNanos()) {
			return;
		}
		if (refusing.compareAndSet(null, "the store answered a write READONLY: its connections go to a replica "
				+ "(an old master the Sentinels demoted in a failover this relay did not follow); asking the Sentinels "
				+ "for the master")) {
			log.warn("The store answered a write READONLY, so its connections go to a replica, an old master demoted in "
					+ "a failover this relay did not follow: the relay asks the Sentinels for the master of '{}' and moves "
					+ "them there (every {} s until one answers)", master, INTERVAL.toSeconds());
		}
		ask();
	}

	/** Why the store refuses writes, while it does ({@link #failed}); else null. */
	String refusingWrites() {
		return refusing.get();
	}

	/**
	 * Asks the Sentinels, unless a question is under way or the store is held; moves the connections if they name a
	 * master other than {@link #current} or, after a {@code READONLY}, any master. While the store still refuses
	 * writes afterwards, asks again in {@link #INTERVAL}.
	 */
	private void ask() {
		RedisClient using = client.get();
		if (using == null) {
			return;
		}
		if (held.getAsBoolean()) {
			askAgainWhileRefusing();
			return;
		}
		if (!asking.compareAndSet(false, true)) {
			return;
		}
		sentinels.namedMaster(using, master)
			.subscribeOn(OffEventLoop.SCHEDULER)
			.publishOn(OffEventLoop.SCHEDULER)
			.doOnNext(named -> {
				String known = current.get();
				boolean moveNow = refusing.get() != null || (known != null && !known.equals(named));
				if (held.getAsBoolean() || (!moveNow && !current.compareAndSet(null, named))) {
					return;
				}
				if (moveNow) {
					log.warn("The Sentinels name {} the master of '{}'{}: the store's connections now go there", named,
							master, refusing.get() != null ? ", and the store refused a write" : ", not " + known
									+ " where the relay's connections went: a failover it did not follow");
					move.accept(named);
				}
			})
			.doFinally(signal -> {
				asking.set(false);
				askAgainWhileRefusing();
			})
			.subscribe(null, error -> log.warn("The store's connections could not be moved to the master the "
					+ "Sentinels name: {}", error.toString()));
	}

	/** While the store refuses writes, asks again in {@link #INTERVAL}. */
	private void askAgainWhileRefusing() {
		if (refusing.get() != null) {
			retry.update(Mono.delay(INTERVAL).subscribe(unused -> ask()));
		}
	}

	/** Asks no more: the relay stops. */
	void stop() {
		retry.dispose();
	}

	/** Whether {@code error} (or a cause) is Redis's {@code READONLY} answer. */
	static boolean readOnly(Throwable error) {
		for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
			if (cause instanceof RedisReadOnlyException
					|| (cause.getMessage() != null && cause.getMessage().startsWith("READONLY"))) {
				return true;
			}
		}
		return false;
	}

}
