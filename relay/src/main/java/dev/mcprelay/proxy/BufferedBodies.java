package dev.mcprelay.proxy;

import java.util.concurrent.atomic.AtomicLong;

import org.springframework.stereotype.Component;

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
 * instead of exhausting the heap. The bytes are counted as {@link BoundedBody} allocates them (growing arrays
 * included) and held until the request's exchange ends, since that is how long the relay keeps a request's body
 * (parsed, forwarded, logged) and the answer it relays.
 *
 * <p>Each client request holds a {@link Lease} for its whole exchange, put in its Reactor context by the route that
 * serves it ({@link #into}), and closed when the exchange ends, completed, failed or cancelled; a body read with no
 * lease in its context (outside a client's request) is counted only while it is read. The gauge
 * {@value RelayMeters#BUFFERED_BODIES} shows the bytes held now.
 */
@Component
public final class BufferedBodies {

	private final long limit;

	private final AtomicLong held = new AtomicLong();

	BufferedBodies(RelayProperties properties, MeterRegistry registry) {
		this.limit = properties.bufferedBodiesLimit().toBytes();
		Gauge.builder(RelayMeters.BUFFERED_BODIES, held, AtomicLong::get)
			.description("Bytes of request and response bodies the relay holds in memory now, of "
					+ "mcp-relay.max-buffered-bodies")
			.baseUnit("bytes")
			.register(registry);
	}

	/** A new lease for one client request's exchange; {@link Lease#close() closed} when the exchange ends. */
	public Lease lease() {
		return new Lease();
	}

	/** The lease of the exchange whose context this is, or {@code null} outside a client's request. */
	static Lease leaseOf(ContextView context) {
		return context.getOrDefault(Lease.class, null);
	}

	/** The bytes every lease holds now. */
	long held() {
		return held.get();
	}

	private boolean take(long bytes) {
		while (true) {
			long now = held.get();
			if (now + bytes > limit) {
				return false;
			}
			if (held.compareAndSet(now, now + bytes)) {
				return true;
			}
		}
	}

	/**
	 * What one client request's exchange holds of the budget. Thread-safe: a request's bodies may be read on
	 * different threads (the client's, the upstream's, a virtual server's members'); once closed, it takes nothing
	 * and gives nothing back twice.
	 */
	public final class Lease implements AutoCloseable {

		private long taken;

		private boolean closed;

		private Lease() {
		}

		/** {@code context} with this lease in it, for the bodies read within. */
		public Context into(Context context) {
			return context.put(Lease.class, this);
		}

		/** Takes {@code bytes} of the budget; {@code false}, taking nothing, when the budget has no room for them. */
		synchronized boolean take(long bytes) {
			if (closed || !BufferedBodies.this.take(bytes)) {
				return false;
			}
			taken += bytes;
			return true;
		}

		/** Takes {@code bytes} whether or not there is room: for a copy that lets a larger array go at once. */
		synchronized void force(long bytes) {
			if (!closed) {
				held.addAndGet(bytes);
				taken += bytes;
			}
		}

		/** Gives back {@code bytes} taken before (an array let go). */
		synchronized void give(long bytes) {
			long given = Math.min(bytes, taken);
			if (!closed && given > 0) {
				taken -= given;
				held.addAndGet(-given);
			}
		}

		/** The exchange ended: everything it holds goes back to the budget. */
		@Override
		public synchronized void close() {
			if (!closed) {
				closed = true;
				held.addAndGet(-taken);
				taken = 0;
			}
		}

	}

}
