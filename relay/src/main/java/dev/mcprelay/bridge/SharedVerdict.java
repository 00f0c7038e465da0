package dev.mcprelay.bridge;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Function;
import java.util.function.Predicate;

import reactor.core.publisher.Mono;

/**
 * The one verdict of an exchange the relay makes on its own with a server to learn about it ({@link SessionEraProbe},
 * {@link ModernProbe}), shared by every use: never two exchanges at once, and every ask while one is in flight, or
 * while its verdict is kept once it ended, gets its verdict. A verdict the server gave ({@code answered}) is kept for
 * {@link ServerVersions#PROBE_INTERVAL} from the exchange's start; the absence of one (a 5xx, a failed connection, no
 * answer in time) only {@link #RETRY} from the exchange's end, doubled for each such exchange in a row up to the
 * interval, so that one transient failure does not stand for every caller for the whole interval (review 46k, K5).
 * So however many clients' requests make the relay ask (40 concurrent refused requests, a caller that repeats its
 * own), the server that answers gets one exchange per interval (review 46j, N3: the {@code server/discover} was asked
 * once per refused request, without bound).
 *
 * <p>The exchange is the relay's, not a caller's: it is started on its own, no caller's cancel ends it, and each caller
 * waits for its verdict at most its patience ({@link #ask}: half its deadline, counted from when its own request was
 * sent: the one rule for every own request of the relay's, review 46k, K1: a 2026 client waited its whole deadline for
 * a hanging {@code server/discover}, and got a 504 though the server had answered it at once), then goes on with the
 * {@code unknown} verdict, as it would without the exchange. The exchange must end by itself (it bounds its own wait
 * for the server) and never fail.
 *
 * @param <A> what the exchange is made from: of the server's (its URL), never a client's request, which the kept
 * verdict would keep alive with its body and credential headers until the next exchange (review 46k, K4)
 * @param <V> the verdict
 */
final class SharedVerdict<A, V> {

	/** How long the absence of a verdict is kept after the exchange that found none: doubled for each in a row. */
	static final Duration RETRY = Duration.ofSeconds(1);

	private final Function<A, Mono<V>> exchange;

	private final V unknown;

	/** Whether a verdict is the server's (kept for the interval), not the absence of one (kept {@link #RETRY}). */
	private final Predicate<V> answered;

	/** Half the client's deadline: how long after its request was sent a client waits for the verdict. */
	private final long patienceNanos;

	private final LongSupplier nanoClock;

	/** The last verdict asked for (shared while in flight, cached afterwards); guarded by {@code this}. */
	private Mono<V> last;

	/** Whether the exchange of {@link #last} has ended; guarded by {@code this}. */
	private boolean settled;

	/** When {@link #last} was asked (nano time of {@code nanoClock}); guarded by {@code this}. */
	private long askedAt;

	/** Until when the verdict of {@link #last} is kept once settled (nano time); guarded by {@code this}. */
	private long keptUntil;

	/** How many exchanges in a row found no verdict of the server's; guarded by {@code this}. */
	private int unanswered;

	/**
	 * @param exchange makes the exchange anew (when no verdict is in flight or kept); its {@code Mono} ends by itself
	 * (a failure or no value counts as {@code unknown})
	 * @param unknown the verdict of a caller that stopped waiting
	 * @param answered whether a verdict is the server's, kept for the interval; else it is the absence of one
	 * @param deadline the client's deadline (the server's {@code timeouts.non-streaming}): a client waits for the
	 * verdict until half of it has passed since its request was sent
	 * @param nanoClock the clock of the intervals (tests set it)
	 */
	SharedVerdict(Function<A, Mono<V>> exchange, V unknown, Predicate<V> answered, Duration deadline,
			LongSupplier nanoClock) {
		this.exchange = exchange;
		this.unknown = unknown;
		this.answered = answered;
		this.patienceNanos = deadline.toNanos() / 2;
		this.nanoClock = nanoClock;
	}

	/**
	 * The verdict: the one of the exchange in flight or kept, else of a new one made from {@code from}. The caller
	 * whose request was sent at {@code sentNanos} ({@link System#nanoTime}) waits for it until half its deadline has
	 * passed since then; past that (at once, if it has passed: the verdict already known, if any), {@code unknown},
	 * and the exchange goes on without the caller. Cancelling the result cancels only the caller's wait. Never fails.
	 */
	Mono<V> ask(A from, long sentNanos) {
		Mono<V> verdict;
		boolean known;
		synchronized (this) {
			long now = nanoClock.getAsLong();
			if (last == null || settled && now - keptUntil >= 0) {
				askedAt = now;
				settled = false;
				last = Mono.defer(() -> exchange.apply(from)).onErrorResume(failed -> Mono.empty())
					.defaultIfEmpty(unknown).doOnNext(this::settle).cache();
				last.subscribe();
			}
			verdict = last;
			known = settled;
		}
		if (known) {
			return verdict;
		}
		Duration wait = Duration.ofNanos(patienceNanos - (System.nanoTime() - sentNanos));
		return wait.isNegative() || wait.isZero() ? Mono.just(unknown) : verdict.timeout(wait, Mono.just(unknown));
	}

	/** The exchange ended with {@code verdict}: how long it is kept. */
	private synchronized void settle(V verdict) {
		if (answered.test(verdict)) {
			unanswered = 0;
			keptUntil = askedAt + ServerVersions.PROBE_INTERVAL.toNanos();
		}
		else {
			long backoff = RETRY.toNanos() << unanswered;
			unanswered = Math.min(unanswered + 1, 8);
			keptUntil = nanoClock.getAsLong() + Math.min(backoff, ServerVersions.PROBE_INTERVAL.toNanos());
		}
		settled = true;
	}

}
