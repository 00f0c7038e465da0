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
 * ConfiguredSentinels}) and the store's own answer to a write through those connections ({@link StoreWriteCheck}: a
 * master takes it, a replica refuses it {@code READONLY}). It decides nothing about the connections itself; it tells
 * where they should go, logs what outweighed what (each once), and counts the questions. Never fails; a Sentinel or
 * check that does not answer is evidence of nothing.
 */
final class MasterEvidence {

	private static final Logger log = LoggerFactory.getLogger(MasterEvidence.class);

	/** What a write through the store's connections showed. */
	enum Written {
		/** It succeeded: the node they go to is a master. */
		TAKEN,
		/** It was refused {@code READONLY}: the node they go to is a replica. */
		READ_ONLY,
		/** It failed otherwise (no answer, a refusal of the user): nothing is known. */
		UNKNOWN
	}

	private final String master;

	private final ConfiguredSentinels sentinels;

	private final Supplier<Mono<Void>> writeCheck;

	private final Duration bound;

	/** How many questions were put to the Sentinels (for tests: the rate is bounded whatever the traffic). */
	private final AtomicLong questions = new AtomicLong();

	/** The verdict last logged as outweighed by the relay's own evidence, so that it is said once. */
	private final AtomicReference<String> outweighedSaid = new AtomicReference<>();

	/** The disagreement of the Sentinels last logged, so that it is said once. */
	private final AtomicReference<String> disagreementSaid = new AtomicReference<>();

	/** Whether a write check's failure other than {@code READONLY} was said since one last succeeded (once). */
	private final AtomicBoolean checkFailureSaid = new AtomicBoolean();

	/**
	 * @param writeCheck a write through the store's connections, which fails {@code READONLY} on a replica
	 * @param bound how long a write check may take
	 */
	MasterEvidence(String master, ConfiguredSentinels sentinels, Supplier<Mono<Void>> writeCheck, Duration bound) {
		this.master = master;
		this.sentinels = sentinels;
		this.writeCheck = writeCheck;
		this.bound = bound;
	}

	/** How many questions were put to the Sentinels. */
	long questions() {
		return questions.get();
	}

	/** The master the first Sentinel that answers names (where Lettuce connects the next connection to). */
	Mono<String> firstNamed(RedisClient using) {
		return Mono.defer(() -> {
			questions.incrementAndGet();
			return sentinels.namedMaster(using, master);
		}).publishOn(OffEventLoop.SCHEDULER);
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
	 * replica): every Sentinel is asked, and the connections move only if their verdict is another master and either
	 * more than half of the configured Sentinels name it or the node the connections go to refuses a write
	 * {@code READONLY} (it is no longer a master). Staying is logged at WARN once per verdict.
	 */
	Mono<String> movesOff(RedisClient using, String named, String current) {
		return weighed(using).flatMap(verdict -> {
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
				saidOnce(outweighedSaid, target, () -> log.warn("The first Sentinel to answer names {} the master of "
						+ "'{}', but the Sentinels' latest configuration (or most of them) names {}, where the relay's "
						+ "connections go: they stay (a Sentinel with a stale view, listed first?)", named, master, target));
				return Mono.empty();
			}
			if (verdict.heldByMostOfTheConfigured(target)) {
				return Mono.just(target);
			}
			return written().flatMap(written -> {
				if (written == Written.READ_ONLY) {
					return Mono.just(target);
				}
				saidOnce(outweighedSaid, target, () -> log.warn("The Sentinels that answered name {} the master of '{}' "
						+ "({} of the {} configured), not {} where the relay's connections go, which {}: they stay until "
						+ "more than half of the configured Sentinels name {} or a write there is refused READONLY "
						+ "(Sentinels with a stale view, the only ones reachable?)", target, master, verdict.named(target),
						verdict.asked(), current, written == Written.TAKEN ? "takes writes" : "did not answer a write",
						target));
				return Mono.empty();
			});
		});
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
	}

	private static void saidOnce(AtomicReference<String> said, String what, Runnable say) {
		if (!what.equals(said.getAndSet(what))) {
			say.run();
		}
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
