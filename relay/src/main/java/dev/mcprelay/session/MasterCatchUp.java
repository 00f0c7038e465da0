package dev.mcprelay.session;

import java.time.Duration;
import java.util.Optional;
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
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;

/**
 * Catches the store's connections up with a failover the relay did not follow (outside a hold: {@link
 * SentinelMasterSwitches} catches up inside one itself). The principle: the relay moves its store connections only on
 * evidence that outweighs its own, either a {@code READONLY} answer from where they are, or a verdict of the
 * Sentinels that is not one stale voice ({@link MasterEvidence}, {@link MasterVerdict}); and a move is done only when
 * a write succeeded where the connections actually went. Asked on two signs that the relay may have missed a failover:
 * <ul>
 * <li>a Sentinel's subscription taken, at start-up or again after it was lost ({@link #subscribed}): a failover
 * announced while the relay followed no Sentinel went unseen (review 45h H-1). The first Sentinel that answers is asked
 * (its first answer is only remembered, as the master the connections went to, with its configuration epoch); when it
 * names another master, all are asked and weighed, and the connections move only if their verdict is another master
 * named with a later configuration epoch than the one the connections follow, or (epochs unknown) by more than half of
 * the configured Sentinels, or the node the connections go to refuses a write {@code READONLY} (or {@code NOREPLICAS}
 * where epochs do not say the verdict is older) ({@link MasterEvidence#movesOff}; review 45i I-4: one stale Sentinel
 * listed first, review 45j J-4: the only one reachable, moved a relay on the right master onto a replica; review 45k
 * K-1: the only one reachable had seen a failover whose old master still took writes, and was outweighed);</li>
 * <li>the store answering a write {@code NOREPLICAS} in traffic ({@link #failed}): asked as for a subscription taken,
 * at most once per {@link #INTERVAL} (review 45l L-4: it used to count only when a subscription was taken);</li>
 * <li>the store answering a write {@code READONLY} ({@link #failed}): its connections go to a replica, the demoted old
 * master, which Lettuce reconnects to when it cannot reach a Sentinel (review 45h H-2). From then on the store {@link
 * #refusingWrites refuses writes} (the readiness says so), the Sentinels are asked (weighed) and the connections moved
 * to the master of their verdict. Lettuce reconnects where the first Sentinel that answers says, which may not be the
 * verdict, so a move is checked: a write through the connections ({@code writeCheck}) {@link #INTERVAL} after it,
 * and every {@link #INTERVAL} after. Taken, the store takes writes again; refused {@code READONLY}, the move did not
 * take, and the connections are moved again (review 45j J-3: never moved again, stuck on a replica after every
 * Sentinel named the master); any other failure tells nothing, and they are not. Sentinels that answer but decide
 * nothing (a split without epochs) leave the connections where they are, said once (review 45j J-1).</li>
 * </ul>
 * At most one question to the Sentinels per {@link #INTERVAL}, whatever the traffic (review 45i I-1), except for a
 * subscription just taken; one at a time (a subscription taken while one is under way is asked once it ends: the
 * question under way may have asked its Sentinel before it answered again), none during a hold (asked again after it
 * while the store refuses writes),
 * and a {@code READONLY} answered within {@link #INTERVAL} of a move (a call in flight on the connections moved away
 * from) is ignored. Never blocks the caller; never fails (a failure is logged).
 */
final class MasterCatchUp {

	private static final Logger log = LoggerFactory.getLogger(MasterCatchUp.class);

	/** The least time between two questions while the store refuses writes, and after a move before it is asked. */
	static final Duration INTERVAL = Duration.ofSeconds(2);

	private static final String READ_ONLY = "the store answered a write READONLY";

	private final String master;

	private final MasterEvidence evidence;

	private final Supplier<RedisClient> client;

	private final BooleanSupplier held;

	private final Consumer<String> move;

	/** The next step while the store refuses writes (at most one pending). */
	private final Disposable.Swap retry = Disposables.swap();

	private final AtomicBoolean retryPending = new AtomicBoolean();

	/** The master the store's connections were last sent to, as far as the relay knows; null until first known. */
	private final AtomicReference<String> current = new AtomicReference<>();

	/** Why the store refuses writes, while it does; else null. */
	private final AtomicReference<String> refusing = new AtomicReference<>();

	/** Where the connections were moved since the store began refusing writes; null while they were not. */
	private final AtomicReference<String> movedWhileRefusing = new AtomicReference<>();

	/** Where a move was said not to have taken (once per master). */
	private final AtomicReference<String> notTakenSaid = new AtomicReference<>();

	/** Whether the Sentinels answered since the store began refusing writes. */
	private final AtomicBoolean answeredWhileRefusing = new AtomicBoolean();

	private final AtomicBoolean asking = new AtomicBoolean();

	/** Whether a subscription was taken that no question has started for yet (asked when the one under way ends). */
	private final AtomicBoolean subscribedSince = new AtomicBoolean();

	/** When the last question ended ({@link System#nanoTime}). */
	private final AtomicLong askedAt = new AtomicLong(System.nanoTime() - INTERVAL.toNanos());

	/** When the connections were last moved ({@link System#nanoTime}). */
	private final AtomicLong movedAt = new AtomicLong(System.nanoTime() - INTERVAL.toNanos());

	/**
	 * @param client the client the Sentinels are asked through (one that does not reconnect on its own)
	 * @param held whether the store is held now (a catch-up then is the hold's)
	 * @param move moves the store's connections to the master named (closes them and tells the store's other users)
	 * @param writeCheck a write through the store's connections, which fails {@code READONLY} on a replica
	 */
	MasterCatchUp(String master, ConfiguredSentinels sentinels, Supplier<RedisClient> client, BooleanSupplier held,
			Consumer<String> move, Supplier<Mono<Void>> writeCheck) {
		this(master, sentinels, MasterLineage.withoutCredentials(), client, held, move, writeCheck);
	}

	/** @param lineage how a minority's target proves it is this deployment's master (review 45l L-1) */
	MasterCatchUp(String master, ConfiguredSentinels sentinels, MasterLineage lineage, Supplier<RedisClient> client,
			BooleanSupplier held, Consumer<String> move, Supplier<Mono<Void>> writeCheck) {
		this.master = master;
		this.evidence = new MasterEvidence(master, sentinels, lineage, writeCheck, INTERVAL);
		this.client = client;
		this.held = held;
		this.move = move;
	}

	/**
	 * The store's connections were moved to {@code address} (an announced switch followed, or a catch-up): while the
	 * store refuses writes, it still does until a write succeeded where they went.
	 */
	void moved(String address) {
		current.set(address);
		evidence.follows(address, null);
		movedAt.set(System.nanoTime());
		followedEpochAsked(address);
		if (refusing.get() != null) {
			movedWhileRefusing.set(address);
			refusing.set(READ_ONLY + "; its connections were moved toward " + address + ", the master the Sentinels "
					+ "name, and are checked with a write every " + INTERVAL.toSeconds() + " s until one succeeds");
			later();
		}
	}

	/**
	 * Asks the Sentinels, once, for the configuration epoch the connections now follow at {@code address} ({@link
	 * MasterEvidence#named}), then {@code address} for its replication lineage ({@link MasterLineage}; review 45l L-0: after two failovers followed, the epoch remembered was still that of the
	 * first, so a Sentinel that missed only the last moved the relay). Until they answer, and if none names that
	 * address, the epoch is unknown: only more than half of the configured Sentinels, or a refused write, move the
	 * connections then. A failure is logged at DEBUG (it leaves the epoch unknown).
	 */
	private void followedEpochAsked(String address) {
		RedisClient using = client.get();
		if (using == null) {
			return;
		}
		evidence.weighed(using)
			.doOnNext(verdict -> evidence.named(address, verdict))
			.then(evidence.lineageRead(using, address))
			.subscribeOn(OffEventLoop.SCHEDULER)
			.subscribe(null, error -> log.debug("The Sentinels could not be asked for the configuration epoch of {}: {}",
					address, error.toString()));
	}

	/** A Sentinel took the relay's subscription while the store was not held: asks whether a failover was missed. */
	void subscribed() {
		ask(true);
	}

	/**
	 * A call to the store failed with {@code error}: a {@code READONLY} answer makes the store refuse writes until its
	 * connections go to the master the Sentinels name and a write succeeded there; a {@code NOREPLICAS} answer (a
	 * master short of replicas: maybe the old side of a failover the relay did not follow, review 45l L-4) asks the
	 * Sentinels as a subscription taken does, at most once per {@link #INTERVAL}, and the connections move only as
	 * {@link MasterEvidence#movesOff} weighs it (its own replica away, no failover: they stay, and the relay stays ready);
	 * anything else is not this class's business.
	 */
	void failed(Throwable error) {
		if (System.nanoTime() - movedAt.get() < INTERVAL.toNanos()) {
			return;
		}
		if (MasterEvidence.noReplicas(error) && refusing.get() == null) {
			ask(false);
			return;
		}
		if (!readOnly(error)) {
			return;
		}
		if (refusing.compareAndSet(null, READ_ONLY + ": its connections go to a replica (an old master the Sentinels "
				+ "demoted in a failover this relay did not follow); asking the Sentinels for the master")) {
			movedWhileRefusing.set(null);
			notTakenSaid.set(null);
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
	 * could not be moved to a master that takes writes, or the Sentinels disagree (the relay is then not ready). While
	 * no Sentinel can be asked, the store refuses writes but this is false: every relay cut off from the Sentinels is
	 * in that state together (review 45i I-3), as in a Redis outage.
	 */
	boolean refusingDespiteTheSentinels() {
		return refusing.get() != null && answeredWhileRefusing.get();
	}

	/** How many questions were put to the Sentinels since the relay started. */
	long questions() {
		return evidence.questions();
	}

	/**
	 * Asks the Sentinels, unless a question is under way, the store is held, or (unless {@code subscription}) the last
	 * question ended within {@link #INTERVAL}: then, while the store refuses writes, once that interval has passed, and
	 * for a {@code subscription} taken while a question is under way, once that question ends.
	 * While the store refuses writes after a move, checks a write first: taken, done; else asks.
	 */
	private void ask(boolean subscription) {
		RedisClient using = client.get();
		if (using == null) {
			return;
		}
		if (held.getAsBoolean() || (!subscription && System.nanoTime() - askedAt.get() < INTERVAL.toNanos())) {
			later();
			return;
		}
		if (subscription) {
			subscribedSince.set(true);
		}
		if (!asking.compareAndSet(false, true)) {
			later();
			return;
		}
		subscribedSince.set(false);
		Mono.defer(() -> refusing.get() == null ? followed(using)
				: movedWhileRefusing.get() == null ? refused(using, false)
						: evidence.written().flatMap(written -> written == MasterEvidence.Written.TAKEN ? taken()
								: refused(using, written == MasterEvidence.Written.READ_ONLY)))
			.subscribeOn(OffEventLoop.SCHEDULER)
			.doFinally(signal -> {
				askedAt.set(System.nanoTime());
				asking.set(false);
				if (subscribedSince.getAndSet(false)) {
					ask(true);
				}
				else {
					later();
				}
			})
			.subscribe(null, error -> log.warn("The store's connections could not be moved to the master the "
					+ "Sentinels name: {}", error.toString()));
	}

	/**
	 * A subscription was taken: the first Sentinel that answers is asked; if it names another master than the
	 * connections went to, the connections move only on evidence that outweighs their own ({@link
	 * MasterEvidence#movesOff}).
	 */
	private Mono<Void> followed(RedisClient using) {
		return evidence.firstNamed(using)
			.flatMap(named -> {
				if (current.compareAndSet(null, named.address())) {
					evidence.follows(named.address(), named);
					return evidence.lineageRead(using, named.address()).then(Mono.<String>empty());
				}
				String known = current.get();
				if (known.equals(named.address())) {
					evidence.agrees(named);
					return evidence.lineageRead(using, known).then(Mono.<String>empty());
				}
				return evidence.movesOff(using, named, known).doOnNext(target -> {
					if (held.getAsBoolean() || refusing.get() != null) {
						return;
					}
					log.warn("The Sentinels name {} the master of '{}', not {} where the relay's connections went: a "
							+ "failover it did not follow: the store's connections now go there", target, master, known);
					move.accept(target);
				});
			})
			.then();
	}

	/**
	 * The store refuses writes: the Sentinels are asked, their answers weighed, and the connections moved to their
	 * verdict, also again where they were moved when a write there was refused {@code READONLY} ({@code notTaken}: the
	 * move did not take), but not when nothing is known of it. A split decides nothing: said, and the relay not ready.
	 */
	private Mono<Void> refused(RedisClient using, boolean notTaken) {
		return evidence.weighed(using)
			.doOnNext(verdict -> {
				if (held.getAsBoolean() || refusing.get() == null || verdict.answers().isEmpty()) {
					return;
				}
				answeredWhileRefusing.set(true);
				String moved = movedWhileRefusing.get();
				Optional<String> split = evidence.disagreementWhileRefused(verdict);
				if (verdict.master().isEmpty()) {
					split.ifPresent(text -> refusing.set(READ_ONLY + ": its connections go to a replica; the Sentinels "
							+ "disagree: " + text + " (no configuration epoch decides: grant their user +sentinel|master)"));
					return;
				}
				String target = verdict.master().get();
				if (target.equals(moved) && !notTaken) {
					log.debug("The Sentinels name {} the master of '{}', where the store's connections were moved, and "
							+ "the write check tells nothing: not moved again", target, master);
					return;
				}
				if (target.equals(moved)) {
					if (!target.equals(notTakenSaid.getAndSet(target))) {
						log.warn("The store's connections were moved toward {}, the master the Sentinels name, but a write "
								+ "through them is still refused READONLY: they went to a replica (Lettuce reconnects where "
								+ "the first Sentinel to answer says): moved again every {} s until a write succeeds",
								target, INTERVAL.toSeconds());
					}
					move.accept(target);
					refusing.set(READ_ONLY + "; its connections were moved toward " + target + ", the master the "
							+ "Sentinels name, but a write through them was still refused READONLY: they went to a "
							+ "replica; moved again every " + INTERVAL.toSeconds() + " s until a write succeeds");
					return;
				}
				log.warn("The Sentinels name {} the master of '{}', and the store refused a write: the store's connections "
						+ "now go there", target, master);
				move.accept(target);
			})
			.then();
	}

	/** A write succeeded through the store's connections after a move: writes are taken again (logged). */
	private Mono<Void> taken() {
		return Mono.fromRunnable(() -> {
			String moved = movedWhileRefusing.getAndSet(null);
			if (refusing.getAndSet(null) != null) {
				evidence.settled();
				log.info("A write through the store's connections succeeded after they were moved toward {}, the master "
						+ "the Sentinels name: writes are taken again", moved);
			}
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
		return MasterEvidence.readOnly(error);
	}

}
