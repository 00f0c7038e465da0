package dev.mcprelay.session;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.mcprelay.LogText;
import dev.mcprelay.OffEventLoop;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisReadOnlyException;
import reactor.core.publisher.Mono;

/**
 * The evidence {@link MasterCatchUp} weighs before it moves the store's connections: the Sentinels' answers ({@link
 * ConfiguredSentinels}), the configuration epoch of the configuration the connections follow, and the store's own
 * answer to a write through those connections ({@link StoreWriteCheck}: a master takes it, a replica refuses it
 * {@code READONLY}, a master short of replicas {@code NOREPLICAS}). The rule (review 45l):
 * <ul>
 * <li>The epoch remembered is that of the configuration the connections follow NOW, not a lifetime maximum: after every
 * announced switch followed and every catch-up move it is set from the Sentinels' answers that name the address
 * followed ({@code SENTINEL MASTER} {@code config-epoch}, {@link #named}), or unknown when none says; it may go down
 * (Sentinels redeployed with fresh state: L-2), and a relay that followed a failover is not moved by a Sentinel that
 * missed it (L-0).</li>
 * <li>More than half of the configured Sentinels naming one master move the connections there whatever the epochs
 * (Sentinel's own rule; epochs never override it: L-1, L-2).</li>
 * <li>A minority naming another master with a later epoch than the one followed moves them (a failover the relay
 * missed whose old master still takes writes: review 45k K-1); an earlier or equal one does not (a stale Sentinel:
 * review 45j J-4).</li>
 * <li>A write refused {@code READONLY} moves them; {@code NOREPLICAS} as well unless the epochs say the verdict is
 * older than the configuration followed.</li>
 * </ul>
 * It decides nothing about the connections itself; it tells where they should go, logs what outweighed what (each
 * once per state), and counts the questions. Never fails; a Sentinel or check that does not answer is evidence of
 * nothing.
 */
final class MasterEvidence {

	private static final Logger log = LoggerFactory.getLogger(MasterEvidence.class);

	/** What a write through the store's connections showed. */
	enum Written {
		/** It succeeded: the node they go to is a master. */
		TAKEN,
		/** It was refused {@code READONLY}: the node they go to is a replica. */
		READ_ONLY,
		/**
		 * It was refused {@code NOREPLICAS}: the node they go to is a master that may not take writes (too few replicas
		 * for {@code min-replicas-to-write}: the old side of a partition, review 45k K-1).
		 */
		NO_REPLICAS,
		/** It failed otherwise (no answer, a refusal of the user): nothing is known. */
		UNKNOWN
	}

	private final String master;

	private final ConfiguredSentinels sentinels;

	private final MasterLineage lineage;

	private final Supplier<Mono<Void>> writeCheck;

	private final Duration bound;

	/** How many questions were put to the Sentinels (for tests: the rate is bounded whatever the traffic). */
	private final AtomicLong questions = new AtomicLong();

	/**
	 * The configuration the store's connections follow: the master they go to, and the latest configuration epoch an
	 * answer named it with ({@link MasterVerdict#NO_EPOCH} while none did); null until the first answer.
	 */
	private final AtomicReference<MasterVerdict.Answer> followed = new AtomicReference<>();

	/** The verdict last logged as outweighed by the relay's own evidence, so that it is said once per state. */
	private final AtomicReference<String> outweighedSaid = new AtomicReference<>();

	/** The minority's target last logged as not proven this deployment's master ({@link MasterLineage}), once. */
	private final AtomicReference<String> unprovenSaid = new AtomicReference<>();

	/** The disagreement of the Sentinels last logged, so that it is said once. */
	private final AtomicReference<String> disagreementSaid = new AtomicReference<>();

	/** Whether a write check's failure other than {@code READONLY} was said since one last succeeded (once). */
	private final AtomicBoolean checkFailureSaid = new AtomicBoolean();

	/**
	 * @param writeCheck a write through the store's connections, which fails {@code READONLY} on a replica
	 * @param bound how long a write check may take
	 */
	MasterEvidence(String master, ConfiguredSentinels sentinels, Supplier<Mono<Void>> writeCheck, Duration bound) {
		this(master, sentinels, MasterLineage.withoutCredentials(), writeCheck, bound);
	}

	/** @param lineage what the relay saw of its master's replication, and the proof a minority's target must give */
	MasterEvidence(String master, ConfiguredSentinels sentinels, MasterLineage lineage, Supplier<Mono<Void>> writeCheck,
			Duration bound) {
		this.master = master;
		this.sentinels = sentinels;
		this.lineage = lineage;
		this.writeCheck = writeCheck;
		this.bound = bound;
	}

	/** Reads the replication lineage of {@code address}, the master the connections follow ({@link MasterLineage}). */
	Mono<Void> lineageRead(RedisClient using, String address) {
		return lineage.read(using, address);
	}

	/** How many questions were put to the Sentinels. */
	long questions() {
		return questions.get();
	}

	/**
	 * The master the first Sentinel that answers names (where Lettuce connects the next connection to), with the
	 * configuration epoch it has it from ({@link ConfiguredSentinels#firstAnswer}).
	 */
	Mono<MasterVerdict.Answer> firstNamed(RedisClient using) {
		return Mono.defer(() -> {
			questions.incrementAndGet();
			return sentinels.firstAnswer(using, master);
		}).publishOn(OffEventLoop.SCHEDULER);
	}

	/**
	 * The store's connections go to {@code address} (first known there, or moved): the configuration they follow is the
	 * one {@code answer} names it with if it names that address, else of unknown epoch ({@link MasterVerdict#NO_EPOCH})
	 * until {@link #named} says (review 45l L-0/L-2: the epoch is that of the configuration followed now, not a
	 * lifetime maximum; it may go down, as when the Sentinels are redeployed with fresh state). A change of master
	 * forgets what was said of the one before.
	 */
	void follows(String address, MasterVerdict.Answer answer) {
		long epoch = answer != null && answer.address().equals(address) ? answer.epoch() : MasterVerdict.NO_EPOCH;
		MasterVerdict.Answer before = followed.getAndSet(new MasterVerdict.Answer(address, epoch));
		if (before != null && !before.address().equals(address)) {
			outweighedSaid.set(null);
		}
	}

	/**
	 * The Sentinels were asked after the store's connections went to {@code address} (an announced switch followed, a
	 * catch-up move): the configuration they follow is the one {@code verdict}'s answers name that address with (the
	 * latest epoch among them), or of unknown epoch when none does. Nothing changes if the connections went elsewhere
	 * since.
	 */
	void named(String address, MasterVerdict verdict) {
		long epoch = verdict.epochOf(address);
		followed.updateAndGet(now -> now != null && now.address().equals(address)
				? new MasterVerdict.Answer(address, epoch) : now);
	}

	/**
	 * The first Sentinel to answer names {@code answer}'s master where the store's connections go: its epoch, if it
	 * gives one, is the one they follow now (earlier or later), and what was said of another master is forgotten (the
	 * state changed).
	 */
	void agrees(MasterVerdict.Answer answer) {
		if (answer.epoch() != MasterVerdict.NO_EPOCH || followedEpoch() == MasterVerdict.NO_EPOCH) {
			follows(answer.address(), answer);
		}
		outweighedSaid.set(null);
	}

	/** The configuration epoch of the configuration the store's connections follow; {@link MasterVerdict#NO_EPOCH}. */
	long followedEpoch() {
		MasterVerdict.Answer now = followed.get();
		return now == null ? MasterVerdict.NO_EPOCH : now.epoch();
	}

	/**
	 * The one weighing of a verdict naming {@code target}, not where the connections go, against the configuration
	 * they follow (at {@code followedEpoch}), before the store is asked: whether it moves them. More than half of the
	 * configured Sentinels naming {@code target} move them whatever the epochs (review 45l L-2: a lifetime epoch held a
	 * relay against 3 of 3); else a later epoch than the one followed does (a failover the relay did not follow, even
	 * when the old master still takes writes: review 45k K-1); an earlier or equal one, or none known, does not (a stale
	 * Sentinel: review 45j J-4). Pure.
	 */
	static boolean outweighs(MasterVerdict verdict, String target, long followedEpoch) {
		return verdict.heldByMostOfTheConfigured(target) || laterEpoch(verdict, target, followedEpoch).orElse(false);
	}

	/**
	 * Whether the store's answer to a write outweighs the rest: {@code READONLY} always (the node is no longer a
	 * master); {@code NOREPLICAS} as {@code READONLY} unless the epochs say the verdict is older than the configuration
	 * followed (a master that refuses writes, but no later one named: moving to a stale Sentinel's master would not
	 * help). Pure.
	 */
	static boolean refusalMoves(Written written, MasterVerdict verdict, String target, long followedEpoch) {
		return written == Written.READ_ONLY || (written == Written.NO_REPLICAS
				&& laterEpoch(verdict, target, followedEpoch).orElse(true));
	}

	/** Whether {@code target} is named with a later epoch than {@code followedEpoch}; empty when either is unknown. */
	private static Optional<Boolean> laterEpoch(MasterVerdict verdict, String target, long followedEpoch) {
		long named = verdict.epochOf(target);
		if (named == MasterVerdict.NO_EPOCH || followedEpoch == MasterVerdict.NO_EPOCH) {
			return Optional.empty();
		}
		return Optional.of(named > followedEpoch);
	}

	/** The Sentinels' verdict, every one asked, their answers weighed ({@link MasterVerdict}). */
	Mono<MasterVerdict> weighed(RedisClient using) {
		return Mono.defer(() -> {
			questions.incrementAndGet();
			return sentinels.weighedMaster(using, master);
		}).publishOn(OffEventLoop.SCHEDULER);
	}

	/**
	 * While the store takes writes, the first Sentinel to answer named {@code named}, not {@code current} where the
	 * connections go: the master they should move to, or empty when they stay. One answer is one voice, maybe stale
	 * (review 45j J-4: the only Sentinel a relay on the right master could reach was stale, and moved it onto a
	 * replica), maybe the only one to have seen a failover (review 45k K-1: the old master, not demoted, still took
	 * writes): every Sentinel is asked, and the connections move only if their verdict is another master that {@link
	 * #outweighs} the configuration they follow, or the node they go to refuses a write ({@link #refusalMoves}).
	 * Staying is logged at WARN once per state (what is named, where the connections go, what the write showed).
	 */
	Mono<String> movesOff(RedisClient using, MasterVerdict.Answer named, String current) {
		return weighed(using).flatMap(verdict -> {
			if (verdict.epochOf(current) != MasterVerdict.NO_EPOCH) {
				named(current, verdict);
			}
			Optional<String> decided = verdict.master();
			if (decided.isEmpty()) {
				verdict.disagreement().ifPresent(split -> saidOnce(disagreementSaid, split, () -> log.warn("The Sentinels "
						+ "that answered disagree on the master of '{}': {}; the store's connections stay at {}, which "
						+ "takes writes (grant the Sentinels' user +sentinel|master so that their configuration epochs "
						+ "decide)", master, split, current)));
				return Mono.empty();
			}
			String target = decided.get();
			if (target.equals(current)) {
				saidOnce(outweighedSaid, named.address() + '>' + target, () -> log.warn("The first Sentinel to answer "
						+ "names {} the master of '{}', but the Sentinels' latest configuration (or most of them) names {}, "
						+ "where the relay's connections go: they stay (a Sentinel with a stale view, listed first?)",
						named.address(), master, target));
				return Mono.empty();
			}
			long followedEpoch = followedEpoch();
			if (verdict.heldByMostOfTheConfigured(target)) {
				log.debug("More than half of the configured Sentinels name {} the master of '{}' ({} of {}): the store's "
						+ "connections move there from {}", target, master, verdict.named(target), verdict.asked(), current);
				return Mono.just(target);
			}
			if (!outweighs(verdict, target, followedEpoch)) {
				return stayUnlessRefused(verdict, target, current, followedEpoch, false);
			}
			return lineage.refusal(using, target)
				.map(Optional::of)
				.defaultIfEmpty(Optional.empty())
				.flatMap(refused -> {
					if (refused.isEmpty()) {
						return Mono.just(target);
					}
					String why = refused.get();
					saidOnce(unprovenSaid, target + '>' + current + '#' + why, () -> log.warn("Sentinel {} names {} the "
							+ "master of '{}' with a later configuration epoch ({}) than the one the relay's connections "
							+ "follow at {} ({}), but {}: they stay at {} (fewer than half of the configured Sentinels "
							+ "move them only to a node that proves it is this deployment's master; a Sentinel of another "
							+ "deployment, or one with a copied or stale state, in spring.data.redis.sentinel.nodes?)",
							verdict.sentinelsNaming(target), target, master, verdict.epochOf(target), current,
							epoch(followedEpoch), why, current));
					return stayUnlessRefused(verdict, target, current, followedEpoch, true);
				});
		});
	}

	/**
	 * A minority's verdict naming {@code target} did not outweigh the configuration followed: the store is asked, and
	 * the connections move only if it refuses a write ({@link #refusalMoves}); else they stay (WARN once per state).
	 */
	private Mono<String> stayUnlessRefused(MasterVerdict verdict, String target, String current, long followedEpoch,
			boolean unproven) {
		{
			return written().flatMap(written -> {
				if (refusalMoves(written, verdict, target, followedEpoch)
						&& !(unproven && written == Written.NO_REPLICAS)) {
					return Mono.just(target);
				}
				saidOnce(outweighedSaid, target + '>' + current + '>' + written, () -> log.warn("The Sentinels that "
						+ "answered name {} the master of '{}' ({} of the {} configured, {}), not {} where the relay's "
						+ "connections go ({}), which {}: they stay until a Sentinel names {} with a later configuration "
						+ "epoch, more than half of the configured Sentinels name it, or a write there is refused "
						+ "(Sentinels with a stale view, the only ones reachable?)", target, master, verdict.named(target),
						verdict.asked(), epoch(verdict.epochOf(target)), current, epoch(followedEpoch),
						written == Written.TAKEN ? "takes writes"
								: written == Written.NO_REPLICAS ? "refuses writes NOREPLICAS" : "did not answer a write",
						target));
				return Mono.empty();
			});
		}
	}

	private static String epoch(long epoch) {
		return epoch == MasterVerdict.NO_EPOCH ? "no configuration epoch known" : "configuration epoch " + epoch;
	}

	/**
	 * The Sentinels' disagreement, if their verdict decides nothing although they answered differently: logged at WARN
	 * once per disagreement while the store refuses writes (review 45j J-1: silent, the health saying "asking").
	 */
	Optional<String> disagreementWhileRefused(MasterVerdict verdict) {
		Optional<String> split = verdict.disagreement();
		split.ifPresent(text -> saidOnce(disagreementSaid, text, () -> log.warn("The store refuses writes (READONLY), and "
				+ "the Sentinels that answered disagree on the master of '{}': {}; no configuration epoch decides, so the "
				+ "store's connections stay on a replica and the relay is not ready until they agree (grant the Sentinels' "
				+ "user +sentinel|master, docs/operations.md)", master, text)));
		if (verdict.master().isPresent()) {
			disagreementSaid.set(null);
		}
		return split;
	}

	/**
	 * A write through the store's connections, within the bound: what it showed. A failure other than {@code READONLY}
	 * is logged at WARN once until a check succeeds (it leaves the relay unable to tell whether writes are taken).
	 */
	Mono<Written> written() {
		return Mono.defer(writeCheck)
			.timeout(bound)
			.then(Mono.fromCallable(() -> {
				checkFailureSaid.set(false);
				return Written.TAKEN;
			}))
			.onErrorResume(failure -> {
				if (readOnly(failure)) {
					return Mono.just(Written.READ_ONLY);
				}
				if (noReplicas(failure)) {
					return Mono.just(Written.NO_REPLICAS);
				}
				if (checkFailureSaid.compareAndSet(false, true)) {
					log.warn("The store's write check ({} of {}) failed other than READONLY, so the relay cannot tell "
							+ "whether writes are taken: {} (a store user needs the relay's key patterns, "
							+ "docs/operations.md; asked again every {} s while it matters)", "DEL", StoreWriteCheck.KEY,
							LogText.quote(String.valueOf(failure.getMessage())), bound.toSeconds());
				}
				return Mono.just(Written.UNKNOWN);
			});
	}

	/** Forgets what was said: the store takes writes again. */
	void settled() {
		disagreementSaid.set(null);
		outweighedSaid.set(null);
	}

	private static void saidOnce(AtomicReference<String> said, String what, Runnable say) {
		if (!what.equals(said.getAndSet(what))) {
			say.run();
		}
	}

	/** Whether {@code error} (or a cause) is Redis's {@code NOREPLICAS} answer (a master short of good replicas). */
	static boolean noReplicas(Throwable error) {
		for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
			if (cause.getMessage() != null && cause.getMessage().startsWith("NOREPLICAS")) {
				return true;
			}
		}
		return false;
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
