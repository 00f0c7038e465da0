package dev.mcprelay.session;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.connection.ClusterInfo;
import org.springframework.data.redis.connection.ReactiveRedisClusterConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
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
 * <p>Its details name the store ({@code redis}) and the {@link RedisTopology} Spring Data Redis's properties configured
 * ({@code topology}: {@code standalone}, {@code sentinel} with the {@code master}'s name, or {@code cluster}). The
 * session store answers when a {@code PING} does (through Sentinel: the master it names), or, on a Cluster, when the
 * cluster says {@code cluster_state:ok} (every hash slot has a master; otherwise some sessions could be read and others
 * not) and every master that serves slots answers a {@code PING}. Through Sentinel, {@code sentinels} says how many
 * Sentinels the relay follows ({@link FollowedSentinels}: subscribed to their failovers) and why the others are not;
 * when every Sentinel asked refused the subscription, {@code sentinels} is also {@code unavailable}, with that reason
 * (so the relay is not ready if it never was; once ready it stays so, as below).
 *
 * <p>Through Sentinel, a relay whose store answered a write {@code READONLY} (its connections on an old master the
 * Sentinels demoted in a failover it did not follow) lists {@code writes} among the unavailable parts until a write
 * succeeded after its connections were moved to the master the Sentinels name ({@link MasterCatchUp}). It is not ready
 * meanwhile only once the Sentinels answered (the move failed, or no write succeeded after it): the other relays write
 * to the master then. While it cannot ask any Sentinel it stays ready, as for a Redis outage: every relay cut off from
 * the Sentinels during a failover is in that state at once, and taking them all out of rotation would leave none for
 * what does not need the store (review 45i I-3).
 *
 * <p>Otherwise, once ready, a replica stays ready when Redis goes away later: it still serves everything that does not need the
 * store (every direct server; rate limits as their {@code on-store-error} says), and every replica shares the same
 * Redis, so taking them out of rotation would turn a Redis outage into an outage of every MCP server. The health then
 * says which parts cannot reach the store ({@code unavailable}); the store's failures are counted in
 * {@code mcp.relay.session.store.errors} and {@code mcp.relay.rate.limit.store.errors}.
 *
 * <p>Why a part cannot use the store (a wrong password, nothing listening, no answer in time: {@link StoreFailures}) is
 * in the health's {@code reasons}, and logged at WARN with the store's address whenever it changes, and once a minute
 * while it lasts: a replica that is not ready says why.
 */
@Component("relayStore")
class RelayStoreHealth implements ReactiveHealthIndicator {

	static final Duration TIMEOUT = Duration.ofSeconds(2);

	private static final Logger log = LoggerFactory.getLogger(RelayStoreHealth.class);

	private final boolean shared;

	private final ObjectProvider<ReactiveStringRedisTemplate> redis;

	private final ObjectProvider<StoreReadiness> parts;

	private final ObjectProvider<LettuceConnectionFactory> connections;

	private final FollowedSentinels sentinels;

	private final ObjectProvider<SentinelMasterSwitches> switches;

	private static final long LOG_INTERVAL_NANOS = Duration.ofMinutes(1).toNanos();

	/** The reasons last logged, and when: the same reasons are logged again only after a minute. */
	private final AtomicReference<Logged> logged = new AtomicReference<>(new Logged(Map.of(), 0));

	/** Whether every part has been ready once: from then on, an unavailable store no longer makes the relay unready. */
	private final java.util.concurrent.atomic.AtomicBoolean wasReady = new java.util.concurrent.atomic.AtomicBoolean();

	RelayStoreHealth(RelayProperties properties, ObjectProvider<ReactiveStringRedisTemplate> redis,
			ObjectProvider<StoreReadiness> parts, ObjectProvider<LettuceConnectionFactory> connections,
			FollowedSentinels sentinels, ObjectProvider<SentinelMasterSwitches> switches) {
		this.shared = properties.sessions().store() == SessionStoreKind.REDIS;
		this.redis = redis;
		this.parts = parts;
		this.connections = connections;
		this.sentinels = sentinels;
		this.switches = switches;
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
		LettuceConnectionFactory factory = connections.getIfAvailable();
		RedisTopology topology = RedisTopology.of(factory);
		Map<String, Object> where = new java.util.LinkedHashMap<>();
		where.put("store", "redis");
		where.put("topology", topology.detail());
		if (topology == RedisTopology.SENTINEL) {
			where.put("master", factory.getSentinelConfiguration().getRequiredMaster().getName());
			where.put("sentinels", sentinels.summary());
		}
		List<StoreReadiness> all = new java.util.ArrayList<>();
		all.add(new SessionStoreReadiness(redis.getObject()));
		parts.orderedStream().forEach(all::add);
		return Flux.fromIterable(all)
			.flatMap(part -> part.ready()
				.subscribeOn(OffEventLoop.SCHEDULER)
				.timeout(TIMEOUT)
				.then(Mono.<Map.Entry<String, String>>empty())
				.onErrorResume(error -> Mono.just(Map.entry(part.name(), StoreFailures.describe(error, topology)))))
			.collectList()
			.map(down -> {
				if (topology == RedisTopology.SENTINEL && sentinels.noneFollowed()) {
					down.add(Map.entry("sentinels", sentinels.summary()));
				}
				SentinelMasterSwitches switched = topology == RedisTopology.SENTINEL ? switches.getIfAvailable() : null;
				String readOnly = switched == null ? null : switched.refusingWrites();
				if (readOnly != null) {
					down.add(Map.entry("writes", readOnly));
				}
				if (down.isEmpty()) {
					wasReady.set(true);
					logged.set(new Logged(Map.of(), 0));
					return Health.up().withDetails(where).build();
				}
				Map<String, String> reasons = new TreeMap<>();
				down.forEach(part -> reasons.put(part.getKey(), part.getValue()));
				// a relay left on a replica although the Sentinels answered is not ready: other relays write to the master
				boolean ready = wasReady.get() && !(readOnly != null && switched.refusingDespiteTheSentinels());
				warn(reasons, ready);
				Health.Builder health = ready ? Health.up() : Health.down();
				return health.withDetails(where)
					.withDetail("unavailable", List.copyOf(reasons.keySet()))
					.withDetail("reasons", reasons)
					.build();
			});
	}

	/** Says why the store cannot be used, when that changed or a minute after it was last said. */
	private void warn(Map<String, String> reasons, boolean ready) {
		long now = System.nanoTime();
		Logged last = logged.get();
		if ((last.reasons().equals(reasons) && now - last.at() < LOG_INTERVAL_NANOS)
				|| !logged.compareAndSet(last, new Logged(reasons, now))) {
			return;
		}
		StringBuilder why = new StringBuilder();
		reasons.forEach((part, reason) -> why.append(why.length() == 0 ? "" : "; ").append(part).append(": ").append(reason));
		log.warn("The shared store ({}) cannot be used, {}: {}", address(),
				ready ? "so what needs it is answered 503 while this replica stays ready"
						: "so this replica is not ready (/actuator/health/readiness 503) until it can",
				why);
	}

	/** Where the store is, for the log: never a password. */
	private String address() {
		return RedisTopology.address(connections.getIfAvailable());
	}

	private record Logged(Map<String, String> reasons, long at) {
	}

	/**
	 * The session store's connection (Spring Data Redis's shared one) answers a PING; on a Cluster, the cluster says
	 * {@code cluster_state:ok} and every master that serves hash slots answers a PING, which opens the connection to
	 * each before a request needs it.
	 */
	private record SessionStoreReadiness(ReactiveStringRedisTemplate redis) implements StoreReadiness {

		@Override
		public String name() {
			return "sessions";
		}

		@Override
		public Mono<Void> ready() {
			return redis.execute(connection -> connection instanceof ReactiveRedisClusterConnection cluster
					? cluster.clusterGetClusterInfo()
						.flatMap(SessionStoreReadiness::servingEverySlot)
						.thenMany(cluster.clusterGetNodes()
							.filter(node -> node.isMaster() && !node.getSlotRange().getSlots().isEmpty())
							.flatMap(cluster::ping))
					: connection.ping()).then();
		}

		private static Mono<String> servingEverySlot(ClusterInfo info) {
			return "ok".equals(info.getState()) ? Mono.just("ok")
					: Mono.error(new StoreFailures.ClusterNotServing(info.getState()));
		}

	}

}
