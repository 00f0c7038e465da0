package dev.mcprelay.proxy;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Keeps the requests of one upstream session in order on their way upstream, so that a server request sent on the
 * session's GET stream has a stream to go out on.
 *
 * <p>Why: an MCP server drops a message meant for the standalone GET stream when the session has none open. A client
 * opens that stream as soon as its {@code notifications/initialized} is accepted, and may call a tool in the same
 * instant; the two requests reach the relay over two connections within a millisecond, in either order, and the
 * relay cannot tell which the client sent first. Direct, the server's own work on the tool call hides the race;
 * through a relay that sends the POST first, a tool that asks for sampling at once loses its request. So:
 * <ol>
 * <li><b>Order</b>: each request {@link #enter enters} on arrival, before its body is read or any interceptor runs,
 * and gets a {@link Ticket}. Its {@link Ticket#turn() turn} comes once every earlier request of the session has been
 * delivered upstream: a POST or DELETE once its bytes are written to the upstream connection; a GET once the
 * upstream answered its headers (the server holds the stream from then on), or {@link #GET_HEADERS_GRACE} after it
 * was written, for servers that send a GET's headers only with its first event. A request that ends undelivered
 * (answered by the relay, refused, failed, cancelled) gives up its place, never before the requests ahead of it
 * were delivered, so the order holds transitively.</li>
 * <li><b>The stream first</b>: once the upstream accepted a session's {@code notifications/initialized}
 * ({@link #expectStream}), the session's next POSTs and DELETEs wait, each at most {@link #STREAM_OPEN_GRACE} from its
 * own arrival, for the client's GET to enter, and then queue behind it. The grace is counted from the request, not
 * from {@code notifications/initialized}: the client sends its GET and its first call together, whatever the time it
 * took to send them (a loaded client, or a virtual server that joins its members first). A client that never opens a
 * GET pays that wait once: the first request that waited it out ends the expectation; an expectation no request
 * met ends after {@link #STREAM_EXPECTATION_LIFETIME}.</li>
 * </ol>
 * Every wait is bounded: by {@link #STREAM_OPEN_GRACE} and {@link #GET_HEADERS_GRACE}, and by the earlier request's own bounds
 * ({@code timeouts.non-streaming} covers connect and response headers).
 *
 * <p>Sessions are the upstream's ({@code Mcp-Session-Id}), per server; requests without a session id (initialize,
 * 2026-07-28 requests) are not ordered. Order is kept within one replica. Nothing is kept for a session with no
 * request in flight once its grace has passed.
 */
@Component
public class SessionOrder {

	private static final Logger log = LoggerFactory.getLogger(SessionOrder.class);

	/**
	 * How long a request of a session that expects its GET stream waits, from its arrival, for the client's GET to
	 * arrive. A client sends both at once; the margin is for a loaded machine.
	 */
	public static final Duration STREAM_OPEN_GRACE = Duration.ofMillis(500);

	/**
	 * How long a session expects its GET stream after {@code notifications/initialized} when no request comes to wait
	 * for it: only a bound on what is kept for a client that went quiet.
	 */
	public static final Duration STREAM_EXPECTATION_LIFETIME = Duration.ofSeconds(30);

	/**
	 * How long a GET counts as not yet delivered after it was written, when the upstream has not answered its headers:
	 * some servers (the MCP Java SDK's servlet transport) send them only with the first event.
	 */
	public static final Duration GET_HEADERS_GRACE = Duration.ofMillis(500);

	private final ConcurrentMap<String, Ticket> lastBySession = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, Sinks.Empty<Void>> streamsExpected = new ConcurrentHashMap<>();

	/**
	 * A ticket for a request of {@code sessionId}; with no session id its turn is at once.
	 *
	 * @param opensStream whether the request is a GET, which opens the session's server-to-client stream
	 */
	public Ticket enter(String serverId, String sessionId, boolean opensStream) {
		if (sessionId == null || sessionId.isEmpty()) {
			return Ticket.UNORDERED;
		}
		String key = serverId + '\n' + sessionId;
		Ticket ticket = new Ticket(this, key);
		if (opensStream) {
			// Queue first, then lift the expectation: a request that no longer finds it must find the GET queued.
			ticket.queue();
			Sinks.Empty<Void> expected = streamsExpected.remove(key);
			if (expected != null) {
				expected.tryEmitEmpty();
			}
			return ticket;
		}
		Sinks.Empty<Void> expected = streamsExpected.get(key);
		if (expected == null) {
			ticket.queue();
		}
		else {
			ticket.queueAfter(expected.asMono().timeout(STREAM_OPEN_GRACE, Mono.fromRunnable(() -> {
				// No GET within the grace: this client opens none (or not yet); nobody waits for it again.
				if (streamsExpected.remove(key, expected)) {
					log.debug("No GET stream for a session of '{}' within {} of its first request: its requests go on "
							+ "without it", serverId, STREAM_OPEN_GRACE);
				}
				expected.tryEmitEmpty();
			})));
		}
		return ticket;
	}

	/**
	 * The upstream accepted the session's {@code notifications/initialized}: its client is about to open the GET
	 * stream, which the session's next requests let go first.
	 */
	public void expectStream(String serverId, String sessionId) {
		if (sessionId == null || sessionId.isEmpty()) {
			return;
		}
		String key = serverId + '\n' + sessionId;
		Sinks.Empty<Void> expected = Sinks.empty();
		streamsExpected.put(key, expected);
		Mono.delay(STREAM_EXPECTATION_LIFETIME).subscribe(tick -> {
			if (streamsExpected.remove(key, expected)) {
				expected.tryEmitEmpty();
			}
		});
	}

	/** The sessions with a request in flight or a stream expected; for tests. */
	int sessionsTracked() {
		return lastBySession.size() + streamsExpected.size();
	}

	/** The previous last ticket's release, after making {@code ticket} the session's last. */
	private Mono<Void> append(String key, Ticket ticket) {
		Ticket[] previous = new Ticket[1];
		lastBySession.compute(key, (k, last) -> {
			previous[0] = last;
			return ticket;
		});
		return previous[0] == null ? Mono.empty() : previous[0].released.asMono();
	}

	/** One request's place in its session's order. */
	public static final class Ticket {

		static final Ticket UNORDERED = new Ticket(null, null);

		private final SessionOrder order;

		private final String key;

		private final Sinks.Empty<Void> released = Sinks.empty();

		private final Sinks.Empty<Void> queued = Sinks.empty();

		/** The release of the ticket ahead; set once queued. Guarded by {@code this}. */
		private Mono<Void> ahead;

		/** Guarded by {@code this}. */
		private boolean ended;

		private Ticket(SessionOrder order, String key) {
			this.order = order;
			this.key = key;
			if (order == null) {
				ahead = Mono.empty();
				queued.tryEmitEmpty();
			}
		}

		/**
		 * Completes when every earlier request of the session has been delivered upstream (or has ended), so this one
		 * may go.
		 */
		public Mono<Void> turn() {
			return queued.asMono().then(Mono.defer(() -> {
				synchronized (this) {
					return ahead == null ? Mono.<Void>empty() : ahead;
				}
			}));
		}

		/**
		 * This request has been delivered upstream, or ends without being delivered: the next request of the session
		 * may go once the earlier ones have. Idempotent; safe from any thread.
		 */
		public void release() {
			Mono<Void> before;
			synchronized (this) {
				if (order == null || ended) {
					return;
				}
				ended = true;
				before = ahead;
			}
			if (before == null) {
				// never queued: no request waits behind this one
				queued.tryEmitEmpty();
				return;
			}
			before.subscribe(null, error -> done(), this::done);
		}

		/** Like {@link #release()}, {@code delay} from now (unless released before). */
		public void releaseAfter(Duration delay) {
			Mono.delay(delay).subscribe(tick -> {
				if (!isReleased()) {
					log.debug("A GET of a session has no response headers {} after it was sent; the session's next "
							+ "requests go on", delay);
					release();
				}
			});
		}

		private synchronized boolean isReleased() {
			return ended;
		}

		private void queue() {
			synchronized (this) {
				if (ended) {
					return;
				}
				ahead = order.append(key, this);
			}
			queued.tryEmitEmpty();
		}

		private void queueAfter(Mono<Void> admission) {
			admission.subscribe(null, error -> queue(), this::queue);
		}

		private void done() {
			released.tryEmitEmpty();
			order.lastBySession.remove(key, this);
		}

	}

}
