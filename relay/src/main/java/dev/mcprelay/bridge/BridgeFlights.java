package dev.mcprelay.bridge;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.mcprelay.session.SessionKey;
import dev.mcprelay.session.SessionStore;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * What the version bridge's sessions have in flight on this replica, per server ({@link ServerFlights}): one per
 * relay, made and closed by whoever builds the upstream transports (the relay's {@code UpstreamTransports}), and given
 * to every version bridge it makes, so that the bridge a reload makes for a server reaches what the previous one
 * started. A server a reload removes takes no more requests; what it had in flight ends at its own bounds.
 *
 * <p>A bridged session whose GET stream is open here, or that has a request in flight here (a call, a round of input
 * waiting for the client), is in use, as a legacy SSE session with its GET stream attached or a request waiting is
 * ({@code sessions.idle-timeout} ends neither): every {@link #renewalPeriod} (a third of the idle timeout, at most 30 s)
 * this replica reads each such session in the store, which renews its idle expiry (every read is a use). A read that
 * finds the session gone (its client's DELETE on another replica, or evicted) ends its GET stream here, as a DELETE
 * here would; a request in flight ends at its own bounds. A store that cannot answer ends nothing (the next tick asks
 * again).
 */
public final class BridgeFlights implements AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(BridgeFlights.class);

	/** The most sessions read at once by one renewal. */
	private static final int CONCURRENT_READS = 16;

	private final Map<String, ServerFlights> servers = new ConcurrentHashMap<>();

	private final SessionStore store;

	private final Disposable renewing;

	/**
	 * @param store where the bridged sessions are kept
	 * @param idleTimeout the store's {@code sessions.idle-timeout}: how long an unused session is kept
	 */
	public BridgeFlights(SessionStore store, Duration idleTimeout) {
		this.store = store;
		Duration period = renewalPeriod(idleTimeout);
		this.renewing = Flux.interval(period, period, Schedulers.parallel())
			.onBackpressureDrop()
			.concatMap(tick -> renew(), 1)
			.subscribe();
	}

	/** How often the sessions of open GET streams are renewed: a third of the idle timeout, between 100 ms and 30 s. */
	static Duration renewalPeriod(Duration idleTimeout) {
		Duration third = idleTimeout.dividedBy(3);
		return third.compareTo(Duration.ofMillis(100)) < 0 ? Duration.ofMillis(100)
				: third.compareTo(Duration.ofSeconds(30)) > 0 ? Duration.ofSeconds(30) : third;
	}

	/** What server {@code serverId}'s bridged sessions have in flight on this replica. */
	ServerFlights of(String serverId) {
		return servers.computeIfAbsent(serverId, ServerFlights::new);
	}

	/**
	 * Reads the session of every GET stream open here and of every request in flight here, ending the streams whose
	 * session the store no longer holds.
	 */
	Mono<Void> renew() {
		return Flux.fromIterable(servers.values())
			.flatMapIterable(server -> server.sessionsInUse().stream().map(session -> new InUse(server, session))
				.toList())
			.flatMap(used -> Mono.defer(() -> store.find(new SessionKey(used.server().serverId, used.sessionId())))
				.hasElement()
				.doOnNext(held -> {
					if (!held && used.server().streams.containsKey(used.sessionId())) {
						log.debug("A bridged session of '{}' ended elsewhere, expired or was evicted: its GET stream "
								+ "here ends", used.server().serverId);
						used.server().endStream(used.sessionId());
					}
				})
				.onErrorResume(unavailable -> Mono.empty()), CONCURRENT_READS)
			.then();
	}

	private record InUse(ServerFlights server, String sessionId) {
	}

	@Override
	public void close() {
		renewing.dispose();
	}

}
