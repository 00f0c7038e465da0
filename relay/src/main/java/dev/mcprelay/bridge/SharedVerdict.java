package dev.mcprelay.bridge;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Function;

import reactor.core.publisher.Mono;

/**
 * The one verdict of an exchange the relay makes on its own with a server to learn about it ({@link SessionEraProbe},
 * {@link ModernProbe}), shared by every use: one exchange per {@link ServerVersions#PROBE_INTERVAL} at most, and never
 * two at once; every ask while it is in flight, or within the interval of its start once it ended, gets its verdict.
 * So however many clients' requests make the relay ask (40 concurrent refused requests, a caller that repeats its
 * own), the server gets one exchange per interval (review 46j, N3: the {@code server/discover} was asked once per
 * refused request, without bound).
 *
 * <p>The exchange is the relay's, not a caller's: it is started on its own, no caller's cancel ends it, and each caller
 * waits for its verdict only as long as it is told ({@link #ask}), then goes on with the {@code unknown} verdict. The
 * exchange must end by itself (it bounds its own wait for the server) and never fail.
 *
 * @param <A> what the exchange is made from (the request of the caller that starts it: only its server is read)
 * @param <V> the verdict
 */
final class SharedVerdict<A, V> {

	private final Function<A, Mono<V>> exchange;

	private final V unknown;

	private final LongSupplier nanoClock;

	/** The last verdict asked for (shared while in flight, cached afterwards); guarded by {@code this}. */
	private Mono<V> last;

	/** Whether the exchange of {@link #last} has ended; set by the exchange itself. */
	private volatile boolean settled;

	/** When {@link #last} was asked (nano time); guarded by {@code this}. */
	private long askedAt;

	/**
	 * @param exchange makes the exchange anew (asked once per interval); its {@code Mono} ends by itself and never fails
	 * @param unknown the verdict of a caller that stopped waiting
	 */
	SharedVerdict(Function<A, Mono<V>> exchange, V unknown, LongSupplier nanoClock) {
		this.exchange = exchange;
		this.unknown = unknown;
		this.nanoClock = nanoClock;
	}

	/**
	 * The verdict: the one of the exchange in flight or started within {@link ServerVersions#PROBE_INTERVAL}, else of a
	 * new one made from {@code from}. Waits for it at most {@code wait} ({@code null}: until the exchange ends; zero or negative: none, the
	 * verdict already known, if any); past that, {@code unknown}, and the exchange goes on without the caller.
	 * Cancelling the result cancels only the caller's wait. Never fails.
	 */
	Mono<V> ask(A from, Duration wait) {
		Mono<V> verdict;
		boolean known;
		synchronized (this) {
			long now = nanoClock.getAsLong();
			if (last == null || settled && now - askedAt >= ServerVersions.PROBE_INTERVAL.toNanos()) {
				askedAt = now;
				settled = false;
				last = Mono.defer(() -> exchange.apply(from)).doFinally(ended -> settled = true).cache();
				last.subscribe();
			}
			verdict = last;
			known = settled;
		}
		if (known || wait == null) {
			return verdict;
		}
		return wait.isNegative() || wait.isZero() ? Mono.just(unknown) : verdict.timeout(wait, Mono.just(unknown));
	}

}
