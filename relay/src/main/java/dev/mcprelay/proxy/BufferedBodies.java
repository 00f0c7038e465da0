package dev.mcprelay.proxy;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.mcprelay.bridge.CallerShare;
import dev.mcprelay.config.BufferedBodiesValidator;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.metrics.RelayMeters;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * The memory budget of every body the relay reads whole for its clients' requests, together
 * ({@code mcp-relay.max-buffered-bodies}, by default a quarter of the heap): each server's {@code max-buffered-body}
 * bounds one body, this bounds them all at once, so that a flood of large bodies gets 503 ({@code relay_overloaded})
 * instead of exhausting the heap. A body is counted as its bytes arrive ({@link BoundedBody}: never before, whatever
 * its {@code Content-Length} declares) and as the JSON tree parsed from it is built ({@link BodyCharge}), and held until
 * the request's exchange ends, since that is how long the relay keeps a request's body (parsed, forwarded, logged) and
 * the answer it relays.
 *
 * <p>One caller may hold at most its share ({@code max-buffered-bodies-per-caller}, by default half of the budget, so
 * that another caller always finds as much; start-up warns of a share that is the whole budget):
 * a client whose bodies arrive slowly, or stop one byte short of their end, holds what arrived for as long as its
 * connections stay open, and without a share one such client, with any key, would leave nothing for the others. Callers
 * are told apart by who the front door says they are (an API key's client, a token's caller); anonymous callers (security
 * mode {@code none}) are not told apart and share the whole budget.
 *
 * <p>Bodies being read at once compete for what is left; one whose bytes find no room is refused, and gives back what
 * it took. Lest every one of them be refused in turn, none finishing, the body whose reading began first of those being
 * read now competes only with the bodies read whole (its own bytes and theirs must fit the budget), not with the ones
 * read after it (nor past its caller's share): under a flood the relay always finishes reading one body, and while it
 * does, holds at most the bodies the others had read before they were refused more than the budget.
 *
 * <p>Each client request holds a {@link Lease} for its whole exchange, put in its Reactor context by the route that
 * serves it ({@link #into}), and closed when the exchange ends, completed, failed or cancelled; a body read with no
 * lease in its context (outside a client's request) is counted only while it is read. The gauge
 * {@value RelayMeters#BUFFERED_BODIES} shows the bytes held now.
 */
@Component
public final class BufferedBodies {

	private static final Logger log = LoggerFactory.getLogger(BufferedBodies.class);

	private final long limit;

	private final long perCaller;

	private final AtomicLong held = new AtomicLong();

	/** What each caller holding anything holds now; a caller that holds nothing has no entry. */
	private final ConcurrentHashMap<String, Long> callers = new ConcurrentHashMap<>();

	/** The bodies being read now, by the order their reading began. */
	private final ConcurrentSkipListSet<Long> reading = new ConcurrentSkipListSet<>();

	private final AtomicLong readings = new AtomicLong();

	/** What the bodies being read now hold, of {@link #held}. */
	private final AtomicLong readingHeld = new AtomicLong();

	BufferedBodies(RelayProperties properties, MeterRegistry registry) {
		this.limit = properties.bufferedBodiesLimit().toBytes();
		this.perCaller = Math.min(limit, properties.bufferedBodiesPerCaller().toBytes());
		BufferedBodiesValidator.wholeBudgetWarning(properties).ifPresent(log::warn);
		Gauge.builder(RelayMeters.BUFFERED_BODIES, held, AtomicLong::get)
			.description("Bytes of request and response bodies the relay holds in memory now, of "
					+ "mcp-relay.max-buffered-bodies")
			.baseUnit("bytes")
			.register(registry);
	}

	/** A new lease for an anonymous request's exchange. */
	public Lease lease() {
		return lease(() -> null);
	}

	/**
	 * A new lease for one client request's exchange; {@link Lease#close() closed} when the exchange ends.
	 *
	 * @param caller the key of the request's caller, asked when the lease first takes something (bodies are read once
	 * the front door admitted the caller); {@code null} for an anonymous caller, who has no share of its own
	 */
	public Lease lease(Supplier<String> caller) {
		return new Lease(caller);
	}

	/** The lease of the exchange whose context this is, or {@code null} outside a client's request. */
	static Lease leaseOf(ContextView context) {
		return context.getOrDefault(Lease.class, null);
	}

	/** The bytes every lease holds now. */
	long held() {
		return held.get();
	}

	/** The bytes {@code caller}'s leases hold now. */
	long heldBy(String caller) {
		return callers.getOrDefault(caller, 0L);
	}

	/** A body begins to be read: its place among the bodies being read, for {@link Lease#take(long, long)}. */
	long startReading() {
		long ticket = readings.incrementAndGet();
		reading.add(ticket);
		return ticket;
	}

	/** The body of {@code ticket}, which took {@code bytes} while it was read, is read whole, failed or was cancelled. */
	void endReading(long ticket, long bytes) {
		if (reading.remove(ticket)) {
			readingHeld.addAndGet(-bytes);
		}
	}

	/**
	 * Takes {@code bytes} for a body, within its caller's share and the budget; for the body being read under
	 * {@code ticket} (0 for none), which holds {@code mine} already, when it is the first of those being read, the
	 * budget less what the other bodies being read hold.
	 */
	private boolean take(String caller, long bytes, long ticket, long mine) {
		if (caller != null && !takeShare(caller, bytes)) {
			return false;
		}
		while (true) {
			long now = held.get();
			boolean room = now + bytes <= limit || ticket != 0 && isFirst(ticket)
					&& now - readingHeld.get() + mine + bytes <= limit;
			if (!room) {
				if (caller != null) {
					giveShare(caller, bytes);
				}
				return false;
			}
			if (held.compareAndSet(now, now + bytes)) {
				if (ticket != 0) {
					readingHeld.addAndGet(bytes);
				}
				return true;
			}
		}
	}

	private boolean isFirst(long ticket) {
		Long first = reading.isEmpty() ? null : reading.first();
		return first != null && first == ticket;
	}

	private boolean takeShare(String caller, long bytes) {
		boolean[] taken = new boolean[1];
		callers.compute(caller, (key, holding) -> {
			long now = holding == null ? 0 : holding;
			if (now + bytes > perCaller) {
				return holding;
			}
			taken[0] = true;
			return now + bytes;
		});
		return taken[0];
	}

	private void force(String caller, long bytes) {
		held.addAndGet(bytes);
		if (caller != null) {
			callers.merge(caller, bytes, Long::sum);
		}
	}

	private void give(String caller, long bytes) {
		held.addAndGet(-bytes);
		if (caller != null) {
			giveShare(caller, bytes);
		}
	}

	private void giveShare(String caller, long bytes) {
		callers.computeIfPresent(caller, (key, holding) -> holding - bytes <= 0 ? null : holding - bytes);
	}

	/**
	 * What one client request's exchange holds of the budget. Thread-safe: a request's bodies may be read on
	 * different threads (the client's, the upstream's, a virtual server's members'); once closed, it takes nothing
	 * and gives nothing back twice. It is its caller's share as the version bridge sees it ({@link CallerShare}: what the
	 * bridge keeps past the exchange is a lease of the same caller apart from this one), and what the bridge keeps.
	 */
	public final class Lease implements CallerShare, CallerShare.Kept {

		private final Supplier<String> callerOf;

		private String caller;

		private boolean callerKnown;

		private long taken;

		private boolean closed;

		private Lease(Supplier<String> callerOf) {
			this.callerOf = callerOf;
		}

		/**
		 * {@code context} with this lease in it, for the bodies read within, and as the caller's share for what the
		 * version bridge keeps past the exchange ({@link CallerShare#KEY}).
		 */
		public Context into(Context context) {
			return context.put(Lease.class, this).put(CallerShare.KEY, this);
		}

		/**
		 * Takes {@code bytes} of the budget; {@code false}, taking nothing, when the budget, or the caller's share of
		 * it, has no room for them.
		 */
		synchronized boolean take(long bytes) {
			return take(bytes, 0, 0);
		}

		/**
		 * As {@link #take(long)}, for the body being read under {@code ticket} ({@link BufferedBodies#startReading}),
		 * which holds {@code mine} of the budget already: when it is the first of the bodies being read, the bodies read
		 * after it do not count against it.
		 */
		synchronized boolean take(long bytes, long ticket, long mine) {
			if (closed || !BufferedBodies.this.take(caller(), bytes, ticket, mine)) {
				return false;
			}
			taken += bytes;
			return true;
		}

		/**
		 * Takes {@code bytes} whether or not there is room: for a copy that lets a larger array go at once, and for the
		 * answer to a request already forwarded.
		 */
		synchronized void force(long bytes) {
			if (!closed) {
				BufferedBodies.this.force(caller(), bytes);
				taken += bytes;
			}
		}

		/** Gives back {@code bytes} taken before (an array let go). */
		synchronized void give(long bytes) {
			long given = Math.min(bytes, taken);
			if (!closed && given > 0) {
				taken -= given;
				BufferedBodies.this.give(caller, given);
			}
		}

		/**
		 * A lease of this one's caller, apart from it, that holds {@code bytes} until it is closed
		 * ({@link CallerShare#keep}).
		 *
		 * @throws RelayFailure {@code relay_overloaded} when there is no room for them: nothing is taken
		 */
		@Override
		public Lease keep(long bytes) {
			String known;
			synchronized (this) {
				known = caller();
			}
			Lease kept = new Lease(() -> known);
			if (!kept.take(bytes)) {
				throw RelayFailures.relayOverloaded();
			}
			return kept;
		}

		/**
		 * A lease of this one's caller holding up to {@code bytes} of what this one holds, moved to it
		 * ({@link CallerShare#carry}).
		 */
		@Override
		public Lease carry(long bytes) {
			Lease kept;
			synchronized (this) {
				String known = caller();
				kept = new Lease(() -> known);
				long moved = closed ? 0 : Math.min(bytes, taken);
				taken -= moved;
				synchronized (kept) {
					kept.caller = known;
					kept.callerKnown = true;
					kept.taken = moved;
				}
			}
			return kept;
		}

		/** {@link BufferedBodies#startReading}, for a body read within this lease. */
		long startReading() {
			return BufferedBodies.this.startReading();
		}

		/** {@link BufferedBodies#endReading}, for a body read within this lease. */
		void endReading(long ticket, long bytes) {
			BufferedBodies.this.endReading(ticket, bytes);
		}

		/**
		 * The most one request of this lease's caller may ever hold: its share, or the whole budget for an anonymous
		 * caller. A body heavier than this is never read, however long it waits.
		 */
		synchronized long ceiling() {
			return caller() == null ? limit : perCaller;
		}

		/** The exchange ended: everything it holds goes back to the budget. */
		@Override
		public synchronized void close() {
			if (!closed) {
				closed = true;
				if (taken > 0) {
					BufferedBodies.this.give(caller, taken);
				}
				taken = 0;
			}
		}

		private String caller() {
			if (!callerKnown) {
				caller = callerOf.get();
				callerKnown = true;
			}
			return caller;
		}

	}

}
