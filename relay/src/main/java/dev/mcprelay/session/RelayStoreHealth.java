package dev.mcprelay.session;

import java.time.Duration;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.stereotype.Component;

import dev.mcprelay.OffEventLoop;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SessionStoreKind;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The relay's shared store in its readiness ({@code /actuator/health/readiness}, contributor {@code relayStore}): with
 * {@code sessions.store: redis} the relay is not ready until the session store's connection and every other part that
 * keeps state there ({@link StoreReadiness}: the rate-limit buckets) have their connection open and answering, so a
 * fresh replica takes no traffic whose limits or sessions it could not yet check. The connections are opened at
 * start-up, off the event loops, so no request pays for opening them; each check is bounded by {@link #TIMEOUT}.
 * With the memory store it is always up.
 *
 * <p>Once ready, a replica stays ready when Redis goes away later: it still serves everything that does not need the
 * store (every direct server; rate limits as their {@code on-store-error} says), and every replica shares the same
 * Redis, so taking them out of rotation would turn a Redis outage into an outage of every MCP server. The health then
 * says which parts cannot reach the store ({@code unavailable}); the store's failures are counted in
 * {@code mcp.relay.session.store.errors} and {@code mcp.relay.rate.limit.store.errors}.
 */
@Component("relayStore")
class RelayStoreHealth implements ReactiveHealthIndicator {

	static final Duration TIMEOUT = Duration.ofSeconds(2);

	private static final Logger log = LoggerFactory.getLogger(RelayStoreHealth.class);

	private final boolean shared;

	private final ObjectProvider<ReactiveStringRedisTemplate> redis;

	private final ObjectProvider<StoreReadiness> parts;

	/** Whether every part has been ready once: from then on, an unavailable store no longer makes the relay unready. */
	private final java.util.concurrent.atomic.AtomicBoolean wasReady = new java.util.concurrent.atomic.AtomicBoolean();

	RelayStoreHealth(RelayProperties properties, ObjectProvider<ReactiveStringRedisTemplate> redis,
			ObjectProvider<StoreReadiness> parts) {
		this.shared = properties.sessions().store() == SessionStoreKind.REDIS;
		this.redis = redis;
		this.parts = parts;
	}

	/** Opens the store's connections as soon as the application has started, before traffic. */
	@EventListener(ApplicationStartedEvent.class)
	void openConnections() {
		if (shared) {
			health().subscribe(health -> log.debug("The shared store is {}", health.getStatus()));
		}
	}

	@Override
	public Mono<Health> health() {
		if (!shared) {
			return Mono.just(Health.up().withDetail("store", "memory").build());
		}
		List<StoreReadiness> all = new java.util.ArrayList<>();
		all.add(new SessionStoreReadiness(redis.getObject()));
		parts.orderedStream().forEach(all::add);
		return Flux.fromIterable(all)
			.flatMap(part -> part.ready()
				.subscribeOn(OffEventLoop.SCHEDULER)
				.timeout(TIMEOUT)
				.then(Mono.<String>empty())
				.onErrorResume(error -> Mono.just(part.name())))
			.collectList()
			.map(down -> {
				if (down.isEmpty()) {
					wasReady.set(true);
					return Health.up().withDetail("store", "redis").build();
				}
				Health.Builder health = wasReady.get() ? Health.up() : Health.down();
				return health.withDetail("store", "redis").withDetail("unavailable", down).build();
			});
	}

	/** The session store's connection (Spring Data Redis's shared one) answers a PING. */
	private record SessionStoreReadiness(ReactiveStringRedisTemplate redis) implements StoreReadiness {

		@Override
		public String name() {
			return "sessions";
		}

		@Override
		public Mono<Void> ready() {
			return redis.execute(connection -> connection.ping()).then();
		}

	}

}
