package dev.mcprelay.proxy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.http.ReloadEnding;
import dev.mcprelay.metrics.RelayMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * What the relay carries for its clients, and how it ends when the relay shuts down: the SSE streams it holds open,
 * counted per server ({@link RelayMeters#ACTIVE_STREAMS}), and every POST and DELETE in flight, from its arrival until
 * its response ended. Shutdown ends them cleanly, before Spring Boot's graceful shutdown waits for active requests:
 * <ol>
 * <li>GET streams end at once (clients reconnect, to another replica, with {@code Last-Event-ID}), and so does a GET
 * whose upstream has not answered yet;</li>
 * <li>POSTs and DELETEs in flight get {@code mcp-relay.shutdown.stream-grace-period} to finish on their own, whether
 * their upstream's answer has begun or not (a stream's headers, a JSON body, or nothing yet). At its end, what is still
 * in flight is cut: a stream with a JSON-RPC error event for each request still unanswered, an exchange still waiting
 * for (or reading) its upstream's answer with a JSON-RPC error for each of its requests, a body relayed untouched
 * (a 4xx or 5xx, a type the relay does not read) by closing the client's connection, which tells the client the body
 * is incomplete; all with reason {@code relay_shutting_down} and recorded as the relay's doing
 * ({@link dev.mcprelay.metrics.RelayOutcome#SHUTDOWN}), never as the upstream's failure;</li>
 * <li>a stream or exchange that begins after its kind was cut is cut at once;</li>
 * <li>once no POST or DELETE is in flight (they ended, or were cut), the relay's own shutdown work runs
 * ({@link #atShutdown}: a virtual session's member sessions ended), never under a call still using what it ends.</li>
 * </ol>
 * A reload ends the streams it withdrew what governed the same way at once, answered and counted by reason
 * ({@link RelayMeters#STREAMS_ENDED}): a removed server's ({@link Upstream#removed}, {@code server_removed}), those of a
 * caller whose access to the server it withdrew ({@link Upstream#withdrawnFrom}; an API key revoked or no longer
 * opening the server, a token the JWT settings no longer accept: {@code RelayExchange.accessWithdrawn()}; both
 * {@code access_withdrawn}), and those
 * on the sessions the relay bridged that a change ended ({@link Upstream#bridgeRetired}, {@code session_ended}: a
 * changed legacy SSE server's, and a 2025 client's session of the version bridge once its server is pinned to 2025
 * versions), and a virtual server's exchanges with a member when the reload removed or changed the virtual server,
 * or withdrew the client's access to that member ({@code RelayExchange.endedByReload()}: answered and counted under the
 * virtual server). A GET (or a {@code subscriptions/listen}) whose upstream has not answered yet ends so too, at once
 * ({@link #endingBeforeItsAnswer}); a POST's answer is awaited, and ended as it begins if it streams.
 */
@Component
public class OpenStreams implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(OpenStreams.class);

	private static final Duration POLL = Duration.ofMillis(50);

	/** The least time the relay's own shutdown work gets, after the grace period's cut ({@link #atShutdown}). */
	static final Duration WORK_BOUND = Duration.ofSeconds(2);

	/** How long the cut's answers may take to be written before the shutdown work begins. */
	private static final Duration CUT_SETTLING = Duration.ofSeconds(1);

	/** The context key of the relay's own shutdown work. */
	private static final String SHUTDOWN_WORK = OpenStreams.class.getName() + ".shutdownWork";

	/** By server id: those configured at start-up, and those a reload added as their first stream opens. */
	private final Map<String, AtomicInteger> openByServer = new ConcurrentHashMap<>();

	private final Map<String, Counter> stalledByServer = new ConcurrentHashMap<>();

	private final MeterRegistry registry;

	/** POSTs and DELETEs from their arrival until their response ended. */
	private final AtomicInteger callsInFlight = new AtomicInteger();

	private volatile Sinks.Empty<Void> closeGetStreams = Sinks.empty();

	private volatile Sinks.Empty<Void> closePostStreams = Sinks.empty();

	private final Duration gracePeriod;

	/** {@code sessions.max-held-bytes}: the most of a whole answer handed to a connection and not yet written. */
	private final long maxHeldBytes;

	private volatile boolean running;

	/** Work that ends what the relay holds on its own account at shutdown ({@link #atShutdown}). */
	private final java.util.List<java.util.function.Supplier<Mono<Void>>> shutdownWork = new java.util.concurrent.CopyOnWriteArrayList<>();

	OpenStreams(RelayProperties properties, MeterRegistry registry) {
		this.maxHeldBytes = properties.sessions().maxHeldBytes().toBytes();
		this.gracePeriod = properties.shutdown().streamGracePeriod();
		this.registry = registry;
		properties.servers().keySet().forEach(server -> {
			stalledByServer.put(server, stalledCounter(server));
			openByServer.computeIfAbsent(server, this::openGauge);
		});
	}

	private AtomicInteger openGauge(String server) {
		AtomicInteger open = new AtomicInteger();
		Gauge.builder(RelayMeters.ACTIVE_STREAMS, open, AtomicInteger::get)
			.description("SSE streams open right now")
			.tag(RelayMeters.SERVER, server)
			.register(registry);
		return open;
	}

	/** Counts {@code stream} as open from subscription until it ends, however it ends. */
	<T> Flux<T> count(String server, Flux<T> stream) {
		AtomicInteger open = openByServer.computeIfAbsent(server, this::openGauge);
		return stream.doOnSubscribe(subscription -> open.incrementAndGet()).doFinally(signal -> open.decrementAndGet());
	}

	/**
	 * Counts a POST or DELETE as in flight from subscription until it ends, however it ends: shutdown's grace period
	 * waits for it.
	 */
	Mono<Void> inFlight(Mono<Void> call) {
		return call.doOnSubscribe(subscription -> callsInFlight.incrementAndGet())
			.doFinally(signal -> callsInFlight.decrementAndGet());
	}

	/**
	 * Ends the response of a client that read nothing for {@code timeouts.client-write}: logged at INFO (the client's
	 * doing), recorded as {@code client_write_timeout} ({@code client_error}), counted, and its connection closed at
	 * once.
	 *
	 * @return nothing more to write
	 */
	<T> Flux<T> endForStalledClient(RelayCall call) {
		Upstream upstream = call.upstream();
		endForStalledClient(call.exchange(), upstream.id(), call.method().name(), upstream.clientWriteTimeout());
		return Flux.empty();
	}

	private void endForStalledClient(dev.mcprelay.http.RelayExchange exchange, String server, String what,
			Duration clientWrite) {
		log.info("{} response of '{}': the client read nothing for {}; its connection is closed", what, server,
				clientWrite);
		exchange.record().failed(false, "client_write_timeout");
		stalledByServer.computeIfAbsent(server, this::stalledCounter).increment();
		exchange.response().closeConnection();
	}

	/**
	 * The writer of {@code exchange}'s whole answers, as a server's own are written ({@link ClientWriteWindow#whole}):
	 * at most {@code sessions.max-held-bytes} handed to the connection and not yet written, and a client that takes
	 * nothing of the answer for {@code clientWrite} ended as a stalled stream's client is (logged at INFO with
	 * {@code what}, {@code client_write_timeout}, counted under {@code server}, its connection closed). For the answers
	 * the relay composes itself (a virtual server's merged list), which have no upstream exchange to time them.
	 */
	public WholeAnswerWriter clientTimed(dev.mcprelay.http.RelayExchange exchange, String server, String what,
			Duration clientWrite) {
		return (response, body) -> ClientWriteWindow.whole(response, body, maxHeldBytes,
				() -> StreamWatch.of(clientWrite, clientWrite, response),
				() -> endForStalledClient(exchange, server, what, clientWrite));
	}

	/**
	 * The one writer of {@code call}'s whole answers: {@link #clientTimed(dev.mcprelay.http.RelayExchange, String,
	 * String, Duration)}, on the server's clock ({@code timeouts.client-write}).
	 */
	WholeAnswerWriter clientTimed(RelayCall call) {
		Upstream upstream = call.upstream();
		return clientTimed(call.exchange(), upstream.id(), call.method().name(), upstream.clientWriteTimeout());
	}

	private Counter stalledCounter(String server) {
		return Counter.builder(RelayMeters.CLIENT_STALLS)
			.description("Streams closed because the client read nothing for timeouts.client-write")
			.tag(RelayMeters.SERVER, server)
			.register(registry);
	}

	/**
	 * Completes when a stream or an upstream exchange of this kind must end because the relay is shutting down: a GET's
	 * when shutdown begins, a POST's or DELETE's ({@code post}) when the grace period ends.
	 */
	Mono<Void> closing(boolean post) {
		if (!post) {
			return closeGetStreams.asMono();
		}
		Sinks.Empty<Void> closePosts = closePostStreams;
		// the relay's own shutdown work runs after the cut, bounded by its own limit (stop(Runnable))
		return Mono.deferContextual(context -> context.hasKey(SHUTDOWN_WORK) ? Mono.never() : closePosts.asMono());
	}

	/**
	 * The part of {@code context} that marks an exchange as the relay's own shutdown work ({@link #atShutdown}), for an
	 * exchange subscribed apart from the work that makes it (a virtual server's member exchange): the shutdown's cut
	 * does not end such an exchange, the work's own bound does.
	 */
	public static Context shutdownWork(ContextView context) {
		return context.hasKey(SHUTDOWN_WORK) ? Context.of(SHUTDOWN_WORK, Boolean.TRUE) : Context.empty();
	}

	/**
	 * Whether shutdown ends {@code call} at the end of its grace period (a POST or DELETE), not as it begins (a GET, or a
	 * 2026-07-28 {@code subscriptions/listen}, which are streams of the server's that a client opens again elsewhere).
	 */
	static boolean endsWithTheGracePeriod(RelayCall call) {
		return !HttpMethod.GET.equals(call.method()) && !ListenStreams.isListen(call);
	}

	/**
	 * {@code body} as it streams to the client of {@code call}, cut off with a {@link RelayShuttingDownException} when
	 * shutdown ends the call ({@link #closing}, {@link #endsWithTheGracePeriod}), so that shutdown ends a body through
	 * the same failure path as any other early end: a stream, and a body relayed untouched alike; and when a reload ends
	 * it ({@link #reloadEnding}), counted.
	 */
	<T> Flux<T> untilShutdown(Flux<T> body, RelayCall call) {
		return Flux.defer(() -> {
			AtomicBoolean shutDown = new AtomicBoolean();
			AtomicReference<ReloadEnding> byReload = new AtomicReference<>();
			String server = call.upstream().id();
			return body.takeUntilOther(closing(endsWithTheGracePeriod(call)).doOnTerminate(() -> shutDown.set(true)))
				.takeUntilOther(reloadEnding(call).doOnNext(ending -> byReload.compareAndSet(null, ending)))
				.concatWith(Mono.defer(() -> shutDown.get() ? Mono.error(new RelayShuttingDownException())
						: byReload.get() != null ? Mono.error(endedByReload(byReload.get(), server))
								: Mono.empty()));
		});
	}

	/**
	 * What ends {@code call}'s upstream exchange before its answer began: shutdown ({@link #closing}: completes), and,
	 * for a stream of the server's to the client (a GET, a 2026-07-28 {@code subscriptions/listen}: not
	 * {@link #endsWithTheGracePeriod}), a reload that ends it as it would end the stream once open
	 * ({@link #reloadEnding}: fails with the {@link RelayShuttingDownException} that says why, for
	 * {@link #endedBeforeItsAnswer} to count once the exchange was cut). A POST's answer is awaited through a reload: a
	 * JSON answer is delivered, and a stream that begins is ended at once ({@link #untilShutdown}).
	 */
	Mono<Void> endingBeforeItsAnswer(RelayCall call) {
		boolean post = endsWithTheGracePeriod(call);
		if (post) {
			return closing(true);
		}
		String server = call.upstream().id();
		return Mono.firstWithSignal(closing(false),
				reloadEnding(call).flatMap(ending -> Mono.error(RelayShuttingDownException.byReload(ending, server))));
	}

	/**
	 * {@code call}'s upstream exchange was cut by {@code cut} before its answer began ({@link #endingBeforeItsAnswer}):
	 * counted and logged as a stream a reload ended, when a reload did.
	 */
	void endedBeforeItsAnswer(RelayCall call, RelayShuttingDownException cut) {
		if (cut.reloadReason() != null) {
			countEnded(cut.endedServer(call.upstream().id()), cut.reloadReason());
		}
	}

	/**
	 * Completes with what ended {@code call} when a reload withdrew what governs it, whichever comes first: its server
	 * removed ({@link Upstream#removed}, {@code server_removed}), its caller's access to it withdrawn by the server's
	 * settings ({@link Upstream#withdrawnFrom}) or the front door's ({@code RelayExchange.accessWithdrawn()}: both
	 * {@code access_withdrawn}; the server's own settings not for an exchange whose access is judged beyond it,
	 * {@code RelayExchange.accessJudgedBeyondItsServer()}), what the exchange belongs to beyond its server ended
	 * ({@code RelayExchange.endedByReload()}: a virtual server's), or the session the relay bridged for it retired
	 * ({@link Upstream#bridgeRetired}, {@code session_ended}). Never completes otherwise.
	 */
	private Mono<ReloadEnding> reloadEnding(RelayCall call) {
		Upstream upstream = call.upstream();
		String server = upstream.id();
		return Mono.firstWithValue(
				upstream.removed().then(Mono.fromSupplier(() -> new ReloadEnding(server, ReloadEnding.SERVER_REMOVED))),
				call.exchange().accessJudgedBeyondItsServer() ? Mono.<ReloadEnding>never()
						: upstream.withdrawnFrom(call.exchange().caller())
							.then(Mono.fromSupplier(() -> new ReloadEnding(server, ReloadEnding.ACCESS_WITHDRAWN))),
				call.exchange().accessWithdrawn()
					.then(Mono.fromSupplier(() -> new ReloadEnding(server, ReloadEnding.ACCESS_WITHDRAWN))),
				call.exchange().endedByReload(),
				upstream.bridgeRetired(McpRelay.sessionId(call.exchange()))
					.then(Mono.fromSupplier(() -> new ReloadEnding(server, ReloadEnding.SESSION_ENDED))));
	}

	/**
	 * Counts a stream a reload ended because it removed its server, withdrew its caller's access to it, or changed the
	 * server so that a session the relay bridged or the virtual server it came through ended its sessions
	 * ({@link RelayMeters#STREAMS_ENDED}, under the server the ending names, by {@code reason}).
	 *
	 * @param relayed the server whose stream it is (the member, for a virtual server's exchange with one)
	 */
	private RelayShuttingDownException endedByReload(ReloadEnding ending, String relayed) {
		countEnded(ending.server(), ending.reason());
		return RelayShuttingDownException.byReload(ending, relayed);
	}

	private void countEnded(String server, String reason) {
		log.info("A stream of '{}' ended: a configuration reload {}", server, switch (reason) {
			case ReloadEnding.SERVER_REMOVED -> "removed the server";
			case ReloadEnding.SESSION_ENDED -> "changed the server, which ends its sessions";
			default -> "withdrew its caller's access to the server";
		});
		Counter.builder(RelayMeters.STREAMS_ENDED)
			.description("Open streams the relay ended because a configuration reload withdrew what governed them")
			.tag(RelayMeters.SERVER, server)
			.tag(RelayMeters.REASON, reason)
			.register(registry)
			.increment();
	}

	/**
	 * A stream the relay serves itself to {@code exchange} (a virtual server's merged GET, {@code server} the virtual
	 * server): it ends when shutdown begins, as a relayed GET does, so that the client reconnects elsewhere and
	 * shutdown does not wait for it; and when a reload withdraws the caller's access to what it carries
	 * ({@code withdrawn} completes: for a merged GET, {@link dev.mcprelay.http.RelayExchange#accessWithdrawnFromAny}
	 * over the members it reads) or ends {@code server} ({@code serverEnded} completes with why: {@code server_removed},
	 * {@code session_ended}), closed cleanly, counted and recorded (outcome {@code reloaded}, the reason) as a relayed
	 * stream is.
	 */
	public <T> Flux<T> endingAtShutdown(Flux<T> stream, dev.mcprelay.http.RelayExchange exchange, String server,
			Mono<Void> withdrawn, Mono<String> serverEnded) {
		return stream.takeUntilOther(closing(false))
			.takeUntilOther(withdrawn
				.doOnTerminate(() -> endedByReload(exchange, server, ReloadEnding.ACCESS_WITHDRAWN)))
			.takeUntilOther(serverEnded.doOnNext(reason -> endedByReload(exchange, server, reason)));
	}

	/** A stream the relay serves itself was ended by a reload for {@code reason}: counted, and recorded so. */
	private void endedByReload(dev.mcprelay.http.RelayExchange exchange, String server, String reason) {
		countEnded(server, reason);
		exchange.record().cutByRelay(reason);
	}

	/**
	 * {@code work} runs once the POSTs and DELETEs in flight at shutdown have ended (on their own, or cut at the grace
	 * period's end), so that it never ends what they still use: it is bounded by what remains of the grace period, and
	 * at least {@link #WORK_BOUND}, and cancelled at that bound. For what the relay holds on its own account and must
	 * end (a virtual session's member sessions, with the memory store); the exchanges it makes are not cut with the
	 * clients' ({@link #shutdownWork(ContextView)}).
	 */
	public void atShutdown(java.util.function.Supplier<Mono<Void>> work) {
		shutdownWork.add(work);
	}

	/**
	 * Opens for streams; after a stop (a paused test context is stopped and started again, as Spring's test framework
	 * does with cached contexts), streams opened from now on get closing signals of their own.
	 */
	@Override
	public void start() {
		if (!running) {
			closeGetStreams = Sinks.empty();
			closePostStreams = Sinks.empty();
		}
		running = true;
	}

	@Override
	public void stop() {
		throw new UnsupportedOperationException("stopped asynchronously, through stop(Runnable)");
	}

	@Override
	public void stop(Runnable callback) {
		running = false;
		Sinks.Empty<Void> closePosts = closePostStreams;
		closeGetStreams.tryEmitEmpty();
		log.info("Shutting down: GET streams closed; {} POST or DELETE request(s) in flight get up to {} to finish",
				callsInFlight.get(), gracePeriod);
		long start = System.nanoTime();
		untilNoCallInFlight(gracePeriod)
			.then(Mono.fromRunnable(closePosts::tryEmitEmpty))
			// what the cut ended writes its answers at once: the work waits for that, a little
			.then(Mono.defer(() -> untilNoCallInFlight(CUT_SETTLING)))
			.then(Mono.defer(() -> ownWork(start)))
			.doFinally(signal -> callback.run())
			.subscribe();
	}

	/** Completes when no POST or DELETE is in flight, or at {@code limit}. */
	private Mono<Void> untilNoCallInFlight(Duration limit) {
		return Flux.interval(Duration.ZERO, POLL).takeUntil(tick -> callsInFlight.get() == 0).take(limit).then();
	}

	/** The shutdown work ({@link #atShutdown}), bounded by what remains of the grace period, at least WORK_BOUND. */
	private Mono<Void> ownWork(long start) {
		if (shutdownWork.isEmpty()) {
			return Mono.empty();
		}
		Duration left = gracePeriod.minusNanos(System.nanoTime() - start);
		Duration bound = left.compareTo(WORK_BOUND) > 0 ? left : WORK_BOUND;
		return Flux.fromIterable(shutdownWork)
			.flatMap(work -> Mono.defer(work).onErrorResume(error -> {
				log.debug("Shutdown work failed", error);
				return Mono.empty();
			}))
			.then()
			.contextWrite(Context.of(SHUTDOWN_WORK, Boolean.TRUE))
			.timeout(bound, Mono.fromRunnable(() -> log.info("Shutting down: the relay's own shutdown work did not "
					+ "end within {}; it was cancelled", bound)));
	}

	@Override
	public boolean isRunning() {
		return running;
	}

	/** Stops before the web server's graceful shutdown, so that no open stream holds it up. */
	@Override
	public int getPhase() {
		return SmartLifecycle.DEFAULT_PHASE;
	}

}
