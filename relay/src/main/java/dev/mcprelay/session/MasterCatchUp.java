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

import dev.mcprelay.LogText;
import dev.mcprelay.OffEventLoop;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisReadOnlyException;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;

/**
 * Catches the store's connections up with a failover the relay did not follow (outside a hold: {@link
 * SentinelMasterSwitches} catches up inside one itself): it asks the Sentinels for the master and moves the
 * connections there when they name another one than the connections go to. Asked on two signs that the relay may have
 * missed one:
 * <ul>
 * <li>a Sentinel's subscription taken, at start-up or again after it was lost ({@link #subscribed}): a failover
 * announced while the relay followed no Sentinel went unseen (review 45h H-1). The first Sentinel that answers is asked
 * ({@link ConfiguredSentinels#namedMaster}; its first answer is only remembered, as the master the connections went
 * to); when it names another master than the connections went to, that one Sentinel's word is not taken against the
 * relay's own evidence: all of them are asked and their answers weighed ({@link ConfiguredSentinels#weighedMaster}:
 * the latest configuration epoch, else the majority), and the connections move only if that verdict is another master
 * (review 45i I-4: one stale Sentinel listed first moved a relay on the right master onto a replica, every 2 s);</li>
 * <li>the store answering a write {@code READONLY} ({@link #failed}): its connections go to a replica, the demoted old
 * master, which Lettuce reconnects to when it cannot reach a Sentinel (review 45h H-2: stuck there until the next
 * failover). From then on the store {@link #refusingWrites refuses writes} (the readiness says so), the Sentinels are
 * asked (weighed, as above) and the connections moved to the master of their verdict, but never again to where they
 * were moved since the store began refusing writes; it refuses writes until a write succeeded after a move (a
 * {@code DEL} of a key that does not exist, {@code writeCheck}, tried {@link #INTERVAL} after the move, and every
 * {@link #INTERVAL} after).</li>
 * </ul>
 * At most one question to the Sentinels per {@link #INTERVAL}, whatever the traffic (review 45i I-1: every
 * {@code READONLY} answer asked them again, ~60 questions and WARNs a second under traffic while none could be reached),
 * except for a subscription just taken; one at a time, none during a hold (asked again after it while the store refuses
 * writes), and a {@code READONLY} answered within {@link #INTERVAL} of a move (a call in flight on the connections moved
 * away from) is ignored. Never blocks the caller; never fails (a failure is logged).
 */
final class MasterCatchUp {

	private static final Logger log = LoggerFactory.getLogger(MasterCatchUp.class);

	/** The least time between two questions while the store refuses writes, and after a move before it is asked. */
	static final Duration INTERVAL = Duration.ofSeconds(2);

	private final String master;

	private final ConfiguredSentinels sentinels;

	private final Supplier<RedisClient> client;

	private final BooleanSupplier held;

	private final Consumer<String> move;

	private final Supplier<Mono<Void>> writeCheck;

	/** Whether a write check's failure other than {@code READONLY} was said since writes were last taken (once). */
	private final AtomicBoolean checkFailureSaid = new AtomicBoolean();

	/** The next step while the store refuses writes (at most one pending). */
	private final Disposable.Swap retry = Disposables.swap();

	private final AtomicBoolean retryPending = new AtomicBoolean();

	/** The master the store's connections go to, as far as the relay knows; null until first known. */
	private final AtomicReference<String> current = new AtomicReference<>();

	/** Why the store refuses writes, while it does; else null. */
	private final AtomicReference<String> refusing = new AtomicReference<>();

	/** Where the connections were moved since the store began refusing writes; null while they were not. */
	private final AtomicReference<String> movedWhileRefusing = new AtomicReference<>();

	/** The verdict last logged as outweighing a Sentinel's other answer, so that it is said once. */
	private final AtomicReference<String> outweighedSaid = new AtomicReference<>();

	/** Whether the Sentinels named a master since the store began refusing writes. */
	private final AtomicBoolean answeredWhileRefusing = new AtomicBoolean();

	private final AtomicBoolean asking = new AtomicBoolean();

	/** When the last question ended ({@link System#nanoTime}). */
	private final AtomicLong askedAt = new AtomicLong(System.nanoTime() - INTERVAL.toNanos());

	/** When the connections were last moved ({@link System#nanoTime}). */
	private final AtomicLong movedAt = new AtomicLong(System.nanoTime() - INTERVAL.toNanos());

	/** How many questions were put to the Sentinels (for tests: the rate is bounded whatever the traffic). */
	private final AtomicLong questions = new AtomicLong();

	/**
	 * @param client the client the Sentinels are asked through (one that does not reconnect on its own)
	 * @param held whether the store is held now (a catch-up then is the hold's)
	 * @param move moves the store's connections to the master named (closes them and tells the store's other users)
	 * @param writeCheck a write through the store's connections, which fails {@code READONLY} on a replica
	 */
	MasterCatchUp(String master, ConfiguredSentinels sentinels, Supplier<RedisClient> client, BooleanSupplier held,
			Consumer<String> move, Supplier<Mono<Void>> writeCheck) {
		this.master = master;
		this.sentinels = sentinels;
		this.client = client;
		this.held = held;
		this.move = move;
		this.writeCheck = writeCheck;
	}

	/**
	 * The store's connections were moved to {@code address} (an announced switch followed, or a catch-up): while the
	 * store refuses writes, it still does until a write succeeded there.
	 */
	void moved(String address) {
		current.set(address);
		movedAt.set(System.nanoTime());
		if (refusing.get() != null) {
			movedWhileRefusing.set(address);
			refusing.set("the store answered a write READONLY; its connections were moved to " + address + ", the master "
					+ "the Sentinels name, and are checked with a write every " + INTERVAL.toSeconds() + " s until one "
					+ "succeeds");
			later();
		}
	}

	/** A Sentinel took the relay's subscription while the store was not held: asks whether a failover was missed. */
	void subscribed() {
		ask(true);
	}

	/**
	 * A call to the store failed with {@code error}: a {@code READONLY} answer makes the store refuse writes until its
	 * connections go to the master the Sentinels name and a write succeeded there; anything else is not this class's
	 * business.
	 */
	void failed(Throwable error) {
		if (!readOnly(error) || System.nanoTime() - movedAt.get() < INTERVAL.toNanos()) {
			return;
		}
		if (refusing.compareAndSet(null, "the store answered a write READONLY: its connections go to a replica "
				+ "(an old master the Sentinels demoted in a failover this relay did not follow); asking the Sentinels "
				+ "for the master")) {
			movedWhileRefusing.set(null);
			answeredWhileRefusing.set(false);
			log.warn("The store answered a write READONLY, so its connections go to a replica, an old master demoted in "
					+ "a failover this relay did not follow: the relay asks the Sentinels for the master of '{}' and moves "
					+ "them there (asked at most every {} s until a write succeeds)", master, INTERVAL.toSeconds());
		}
		ask(false);
	}

	/** Why the store refuses writes, while it does ({@link #failed}); else null. */
	String refusingWrites() {
		return refusing.get();
	}

	/**
	 * Whether the store refuses writes although the Sentinels answered since it began to: the relay's connections
	 * could not be moved to a master that takes writes (the relay is then not ready). While no Sentinel can be asked,
	 * the store refuses writes but this is false: every relay cut off from the Sentinels is in that state together
	 * (review 45i I-3), as in a Redis outage.
	 */
	boolean refusingDespiteTheSentinels() {
		return refusing.get() != null && answeredWhileRefusing.get();
	}

	/** How many questions were put to the Sentinels since the relay started. */
	long questions() {
		return questions.get();
	}

	/**
	 * Asks the Sentinels, unless a question is under way, the store is held, or (unless {@code subscription}) the last
	 * question ended within {@link #INTERVAL}: then, while the store refuses writes, once that interval has passed.
	 * While the store refuses writes after a move, checks a write first, and asks only if it fails.
	 */
	private void ask(boolean subscription) {
		RedisClient using = client.get();
		if (using == null) {
			return;
		}
		if (held.getAsBoolean() || (!subscription && System.nanoTime() - askedAt.get() < INTERVAL.toNanos())
				|| !asking.compareAndSet(false, true)) {
			later();
			return;
		}
		Mono.defer(() -> refusing.get() == null ? followed(using)
				: movedWhileRefusing.get() == null ? refused(using)
						: writeTaken().flatMap(taken -> taken ? Mono.<Void>empty() : refused(using)))
			.subscribeOn(OffEventLoop.SCHEDULER)
			.doFinally(signal -> {
				askedAt.set(System.nanoTime());
				asking.set(false);
				later();
			})
			.subscribe(null, error -> log.warn("The store's connections could not be moved to the master the "
					+ "Sentinels name: {}", error.toString()));
	}

	/**
	 * A subscription was taken: the first Sentinel that answers is asked; if it names another master than the
	 * connections went to, all are, and the connections move to their verdict if it is another master.
	 */
	private Mono<Void> followed(RedisClient using) {
		return Mono.defer(() -> {
			questions.incrementAndGet();
			return sentinels.namedMaster(using, master);
		})
			.publishOn(OffEventLoop.SCHEDULER)
			.flatMap(named -> {
				String known = current.get();
				if (known == null) {
					current.compareAndSet(null, named);
					return Mono.empty();
				}
				if (known.equals(named)) {
					return Mono.empty();
				}
				return sentinels.weighedMaster(using, master)
					.publishOn(OffEventLoop.SCHEDULER)
					.doOnNext(verdict -> {
						if (held.getAsBoolean() || refusing.get() != null) {
							return;
						}
						if (verdict.equals(current.get())) {
							if (!verdict.equals(outweighedSaid.getAndSet(verdict))) {
								log.warn("The first Sentinel to answer names {} the master of '{}', but the Sentinels' "
										+ "latest configuration (or most of them) names {}, where the relay's connections "
										+ "go: they stay (a Sentinel with a stale view, listed first?)", named, master,
										verdict);
							}
							return;
						}
						outweighedSaid.set(null);
						log.warn("The Sentinels name {} the master of '{}', not {} where the relay's connections went: a "
								+ "failover it did not follow: the store's connections now go there", verdict, master,
								known);
						move.accept(verdict);
					});
			})
			.then();
	}

	/**
	 * The store refuses writes: the Sentinels are asked, their answers weighed, and the connections moved to their
	 * verdict unless they were moved there since the store began refusing writes.
	 */
	private Mono<Void> refused(RedisClient using) {
		return Mono.defer(() -> {
			questions.incrementAndGet();
			return sentinels.weighedMaster(using, master);
		})
			.publishOn(OffEventLoop.SCHEDULER)
			.doOnNext(verdict -> {
				if (held.getAsBoolean() || refusing.get() == null) {
					return;
				}
				answeredWhileRefusing.set(true);
				String moved = movedWhileRefusing.get();
				if (verdict.equals(moved)) {
					log.debug("The Sentinels name {} the master of '{}', where the store's connections were moved, and "
							+ "the store still refuses writes: not moved again", verdict, master);
					return;
				}
				log.warn("The Sentinels name {} the master of '{}', and the store refused a write: the store's connections "
						+ "now go there", verdict, master);
				move.accept(verdict);
			})
			.then();
	}

	/**
	 * After a move while the store refused writes: a write through the store's connections; true when it succeeded
	 * (writes are taken again, logged), false when it failed (within {@link #INTERVAL}).
	 */
	private Mono<Boolean> writeTaken() {
		return Mono.defer(writeCheck)
			.timeout(INTERVAL)
			.then(Mono.fromCallable(() -> {
				String moved = movedWhileRefusing.getAndSet(null);
				if (refusing.getAndSet(null) != null) {
					log.info("The store's connections go to the master the Sentinels name, {}: a write succeeded there, "
							+ "writes are taken again", moved);
				}
				checkFailureSaid.set(false);
				return Boolean.TRUE;
			}))
			.onErrorResume(failure -> {
				if (!readOnly(failure) && checkFailureSaid.compareAndSet(false, true)) {
					log.warn("The store's write check ({} of {}) failed other than READONLY, so the relay cannot tell "
							+ "whether writes are taken again, and stays unready while it cannot: {} (a store user needs "
							+ "the relay's key patterns, docs/operations.md; asked again every {} s)", "DEL",
							StoreWriteCheck.KEY, LogText.quote(String.valueOf(failure.getMessage())),
							INTERVAL.toSeconds());
				}
				return Mono.just(Boolean.FALSE);
			});
	}

	/** While the store refuses writes, the next step in {@link #INTERVAL} (at most one pending). */
	private void later() {
		if (refusing.get() != null && retryPending.compareAndSet(false, true)) {
			retry.update(Mono.delay(INTERVAL).subscribe(unused -> {
				retryPending.set(false);
				ask(false);
			}));
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
