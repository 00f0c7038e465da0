package dev.mcprelay.proxy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.metrics.RelayMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The SSE streams the relay holds open: counted per server ({@link RelayMeters#ACTIVE_STREAMS}), and ended cleanly
 * when the relay shuts down, before Spring Boot's graceful shutdown waits for in-flight requests:
 * <ol>
 * <li>GET streams end at once (clients reconnect, to another replica, with {@code Last-Event-ID});</li>
 * <li>POST streams get {@code mcp-relay.shutdown.stream-grace-period} to finish on their own, then end too, each
 * request still unanswered getting a JSON-RPC error event;</li>
 * <li>a stream opened after shutdown began ends at once.</li>
 * </ol>
 */
@Component
public class OpenStreams implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(OpenStreams.class);

	private static final Duration POLL = Duration.ofMillis(50);

	private final Map<String, AtomicInteger> openByServer = new HashMap<>();

	private final Map<String, Counter> stalledByServer = new ConcurrentHashMap<>();

	private final MeterRegistry registry;

	private final AtomicInteger openPostStreams = new AtomicInteger();

	private volatile Sinks.Empty<Void> closeGetStreams = Sinks.empty();

	private volatile Sinks.Empty<Void> closePostStreams = Sinks.empty();

	private final Duration gracePeriod;

	private volatile boolean running;

	OpenStreams(RelayProperties properties, MeterRegistry registry) {
		this.gracePeriod = properties.shutdown().streamGracePeriod();
		this.registry = registry;
		properties.servers().keySet().forEach(server -> {
			stalledByServer.put(server, stalledCounter(server));
			AtomicInteger open = new AtomicInteger();
			openByServer.put(server, open);
			Gauge.builder(RelayMeters.ACTIVE_STREAMS, open, AtomicInteger::get)
				.description("SSE streams open right now")
				.tag(RelayMeters.SERVER, server)
				.register(registry);
		});
	}

	/** Counts {@code stream} as open from subscription until it ends, however it ends. */
	<T> Flux<T> count(String server, boolean post, Flux<T> stream) {
		AtomicInteger open = openByServer.computeIfAbsent(server, id -> new AtomicInteger());
		return stream.doOnSubscribe(subscription -> {
			open.incrementAndGet();
			if (post) {
				openPostStreams.incrementAndGet();
			}
		}).doFinally(signal -> {
			open.decrementAndGet();
			if (post) {
				openPostStreams.decrementAndGet();
			}
		});
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
		log.info("{} response of '{}': the client read nothing for {}; its connection is closed", call.method(),
				upstream.id(), upstream.clientWriteTimeout());
		call.exchange().record().failed(false, "client_write_timeout");
		stalledByServer.computeIfAbsent(upstream.id(), this::stalledCounter).increment();
		call.exchange().response().closeConnection();
		return Flux.empty();
	}

	private Counter stalledCounter(String server) {
		return Counter.builder(RelayMeters.CLIENT_STALLS)
			.description("Streams closed because the client read nothing for timeouts.client-write")
			.tag(RelayMeters.SERVER, server)
			.register(registry);
	}

	/** Completes when a stream of this kind must end because the relay is shutting down. */
	Mono<Void> closing(boolean post) {
		return (post ? closePostStreams : closeGetStreams).asMono();
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
		log.info("Shutting down: GET streams closed; {} POST stream(s) get up to {} to finish",
				openPostStreams.get(), gracePeriod);
		Flux.interval(Duration.ZERO, POLL)
			.takeUntil(tick -> openPostStreams.get() == 0)
			.take(gracePeriod)
			.then(Mono.fromRunnable(closePosts::tryEmitEmpty))
			.doFinally(signal -> callback.run())
			.subscribe();
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
