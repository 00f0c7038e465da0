package dev.mcprelay.bridge;

import reactor.util.context.ContextView;

/**
 * The share of the relay's memory budget for bodies ({@code mcp-relay.max-buffered-bodies} and
 * {@code max-buffered-bodies-per-caller}) of the caller of one client request, as the bridge sees it: what the bridge
 * keeps of a request past that request's exchange counts in it, as a {@link Kept}, until the bridge lets go of what it
 * keeps. Two things are kept so: a bridged 2025 client's answer that a round of input keeps until the round's last
 * answer comes ({@link ClientAnswers}; the POST that brought it was answered 202 at once), taken anew by
 * {@link #keep}; and the request of a 2026 client's call held for its retry ({@link HeldCalls}), which its request
 * holds already, moved by {@link #carry}.
 *
 * <p>The relay puts the share of each client request in the Reactor context of its subscription to the transport
 * ({@link #KEY}: the lease the relay's budget for bodies gives the request's exchange, which implements it); the
 * bridge reads it while that subscription runs ({@link #of}). Outside a client's request there is none
 * ({@link #NONE}): nothing is counted, nothing refused. Thread-safe; neither method blocks.
 */
public interface CallerShare {

	/** The key of a request's share in the Reactor context. */
	Object KEY = CallerShare.class;

	/** The share outside a client's request: it counts nothing and refuses nothing. */
	CallerShare NONE = new CallerShare() {

		@Override
		public Kept keep(long bytes) {
			return Kept.NOTHING;
		}

		@Override
		public Kept carry(long bytes) {
			return Kept.NOTHING;
		}

	};

	/** The share of the request whose context this is, or {@link #NONE}. */
	static CallerShare of(ContextView context) {
		return context.getOrDefault(KEY, NONE);
	}

	/**
	 * Takes {@code bytes} of the budget anew, in this caller's share, until the returned {@link Kept} is closed: for
	 * what the bridge keeps that its request no longer counts (its exchange ends before the bridge lets go of it).
	 * Taken at once, whether or not the request's exchange ended.
	 *
	 * @throws RuntimeException the relay's refusal {@code relay_overloaded} (503) when the budget or the caller's
	 * share has no room for {@code bytes}: nothing is taken, and the bridge keeps nothing; it lets the refusal end the
	 * request that brought what it would have kept
	 */
	Kept keep(long bytes);

	/**
	 * Moves up to {@code bytes} of what the request holds of the budget now (never more than it holds) to a
	 * {@link Kept} of this caller, held until it is closed: for what the bridge keeps of a request that the request
	 * counts already. Nothing is taken anew, so nothing is refused: what is kept leaves less room to the caller's next
	 * requests, which are refused ({@code relay_overloaded}) while their share is full. Once the request's exchange
	 * ended (its bytes given back), nothing is moved.
	 */
	Kept carry(long bytes);

	/**
	 * What the bridge keeps in a caller's share ({@link #keep}, {@link #carry}). Whoever keeps it closes it on every
	 * path by which it lets go of what it keeps (used, ended, expired, cancelled); closing gives its bytes back to the
	 * budget once, a second close does nothing.
	 */
	@FunctionalInterface
	interface Kept extends AutoCloseable {

		/** Holds nothing: for what is kept outside a client's request. */
		Kept NOTHING = () -> {
		};

		@Override
		void close();

	}

}
