package dev.mcprelay.interceptors;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

import org.springframework.context.event.EventListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.OffEventLoop;
import dev.mcprelay.session.StoreConnectionAttempts;
import dev.mcprelay.session.StoreHold;
import dev.mcprelay.session.StoreMasterSwitched;
import dev.mcprelay.session.StoreReadiness;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import io.lettuce.core.codec.ByteArrayCodec;
import reactor.core.publisher.Mono;

/**
 * Rate-limit buckets in Redis, shared by every replica: Bucket4j's Lettuce integration (compare-and-swap on one key
 * per bucket, {@value #KEY_PREFIX}{@code <rule>|<server>|<who>}), over the Redis that {@code spring.data.redis.*}
 * configures, however it runs: one server, a master found through Sentinel (Spring Data Redis's own connection, which
 * follows a failover), or a Cluster ({@link RedisClusterClient}, which sends each bucket's commands to the master of its key's hash slot). Every
 * command and script touches its bucket's one key, so a bucket needs no hash tag, and the buckets of one caller spread
 * over the Cluster's masters. A bucket's key expires once it would be full again, plus {@code sessions.idle-timeout}.
 *
 * <p>The connection is opened at start-up, off the event loops (the relay's readiness waits for it,
 * {@link StoreReadiness}), and re-established by Lettuce when Redis comes back; each call is bounded by what is left of
 * its request's check ({@link CheckDeadline}) once the connection is open, so a Redis that is away fails the check
 * quickly instead of holding requests, and a slow connection opening is not counted as one.
 */
final class RedisRateLimitBuckets implements RateLimitBuckets, StoreReadiness, AutoCloseable {

	static final String KEY_PREFIX = "mcp-relay:rate-limit:";

	/** What Reactor's {@code cache} takes for "never expires". */
	private static final Duration FOREVER = Duration.ofMillis(Long.MAX_VALUE);

	/** Bucket proxies kept at most; past it the least recently used go (a new one is made on the next check). */
	static final long MAX_BUCKETS = 100_000;

	/** The longest a check waits for the connection to be opened, when it is not open yet. */
	static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

	private final LettuceConnectionFactory redis;

	private final ExpirationAfterWriteStrategy expiry;

	private final Duration idleTimeout;

	private final StoreHold hold;

	private final StoreConnectionAttempts attempts;

	/** The buckets over their connection, opened on first use; opened anew once the Sentinels name another master. */
	private volatile Mono<Connected> connected;

	private volatile StatefulConnection<byte[], byte[]> connection;

	/** Sends a PING on the buckets' connection; on a Cluster, to every master that serves hash slots. */
	private volatile Supplier<CompletionStage<?>> ping;

	/**
	 * A proxy manager over the buckets' connection, with one bucket proxy per key, so that concurrent checks of one
	 * bucket are batched into one compare-and-swap (Bucket4j's batching): without it, a burst on one key made every
	 * check retry against the others and run past the check's bound, and a fail-open rule let those through uncounted.
	 * A new connection has proxies of its own.
	 */
	private record Connected(AsyncProxyManager<byte[]> manager, Cache<String, AsyncBucketProxy> buckets,
			StatefulConnection<byte[], byte[]> own) {

		/** Closes the buckets' own connection (none through Sentinel, where they use Spring Data Redis's). */
		void close() {
			if (own != null) {
				own.closeAsync();
			}
		}

	}

	/**
	 * @param hold what a check waits for before it uses Redis (the Sentinels promoting a replica:
	 * {@link dev.mcprelay.session.SentinelMasterSwitches}), within the check's deadline
	 * @param attempts where the connection is opened, so that none is being opened when the relay stops
	 */
	RedisRateLimitBuckets(LettuceConnectionFactory redis, Duration idleTimeout, StoreHold hold,
			StoreConnectionAttempts attempts) {
		this.redis = redis;
		this.hold = hold;
		this.attempts = attempts;
		this.expiry = ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(idleTimeout);
		this.idleTimeout = idleTimeout;
		this.connected = connecting();
	}

	/**
	 * Opens the connection and its proxy manager when first subscribed to, off the event loops; again after a failure.
	 * Not once the relay stops ({@link StoreConnectionAttempts}).
	 */
	private Mono<Connected> connecting() {
		return attempts.open(Mono.fromCallable(() -> {
			Bucket4jLettuce.LettuceBasedProxyManagerBuilder<byte[]> builder = connect(redis);
			return new Connected(builder.expirationAfterWrite(expiry).build().asAsync(),
					Caffeine.newBuilder().maximumSize(MAX_BUCKETS).expireAfterAccess(idleTimeout).<String, AsyncBucketProxy>build(),
					redis.isRedisSentinelAware() ? null : connection);
		}).subscribeOn(OffEventLoop.SCHEDULER), Connected::close)
			.cache(manager -> FOREVER, error -> Duration.ZERO, () -> Duration.ZERO);
	}

	/**
	 * Through Sentinel, the buckets count on Spring Data Redis's shared connection, which {@link StoreMasterSwitched}
	 * says was closed for the new master: the next check takes the new one (the buckets' state is in Redis; a proxy
	 * keeps only its batching). Checks in flight on the old connection fail by their rule's {@code on-store-failure}.
	 */
	@EventListener
	void reconnect(StoreMasterSwitched switched) {
		if (redis.isRedisSentinelAware()) {
			connected = connecting();
		}
	}

	/**
	 * Opens the buckets' connection with the client Spring Data Redis made from {@code spring.data.redis.*} (its
	 * addresses, credentials, TLS and options): a Cluster connection of their own for a Cluster, one to the server for
	 * a server; through Sentinel, Spring Data Redis's own shared connection, which
	 * {@link dev.mcprelay.session.SentinelMasterSwitches} opens again when the Sentinels name another master
	 * ({@link #reconnect}): a connection of the buckets' own would ask the Sentinels for the master only when it
	 * connects, and keep counting on a master a graceful failover demoted.
	 * Blocks while it connects: called off the event loops.
	 */
	private Bucket4jLettuce.LettuceBasedProxyManagerBuilder<byte[]> connect(LettuceConnectionFactory redis) {
		AbstractRedisClient client = redis.getRequiredNativeClient();
		if (client instanceof RedisClusterClient cluster) {
			StatefulRedisClusterConnection<byte[], byte[]> open = cluster.connect(ByteArrayCodec.INSTANCE);
			connection = open;
			// opens the connection to each master now, before a check needs it
			ping = () -> open.async().nodes(node -> node.is(NodeFlag.UPSTREAM) && !node.hasNoSlots()).commands().ping();
			return Bucket4jLettuce.casBasedBuilder(open);
		}
		if (redis.isRedisSentinelAware()) {
			StatefulRedisConnection<byte[], byte[]> shared = sharedConnection(redis);
			ping = () -> shared.async().ping();
			return Bucket4jLettuce.casBasedBuilder(shared);
		}
		if (client instanceof RedisClient single) {
			StatefulRedisConnection<byte[], byte[]> open = single.connect(ByteArrayCodec.INSTANCE);
			connection = open;
			ping = () -> open.async().ping();
			return Bucket4jLettuce.casBasedBuilder(open);
		}
		throw new IllegalStateException("Rate limits cannot use a Redis client of type " + client.getClass().getName());
	}

	/**
	 * The native connection {@code redis} shares between its users (opened now if it is not yet); Spring Data Redis
	 * closes it, never the buckets.
	 */
	@SuppressWarnings("unchecked")
	private static StatefulRedisConnection<byte[], byte[]> sharedConnection(LettuceConnectionFactory redis) {
		if (!redis.getShareNativeConnection()) {
			throw new IllegalStateException("Rate limits through Sentinel use Spring Data Redis's shared connection");
		}
		try (RedisConnection borrowed = redis.getConnection()) {
			return ((RedisAsyncCommands<byte[], byte[]>) borrowed.getNativeConnection()).getStatefulConnection();
		}
	}

	/**
	 * Takes one token. A check waits, within its deadline, while the store is {@link StoreHold held}; up to
	 * {@link #CONNECT_TIMEOUT} for the connection when it is still being opened (only the first checks of a relay that
	 * started while Redis was away, or after the Sentinels named another master); then for what is left of the
	 * check's deadline for Redis to answer: opening the connection is not a store failure, and a check with no time
	 * left does not ask.
	 */
	@Override
	public Mono<ConsumptionProbe> tryConsume(String key, BucketConfiguration configuration, CheckDeadline deadline) {
		return counted(deadline, bucket -> bucket.tryConsumeAndReturnRemaining(1), key, configuration);
	}

	@Override
	public Mono<Void> refund(String key, BucketConfiguration configuration, CheckDeadline deadline) {
		return counted(deadline, bucket -> bucket.addTokens(1), key, configuration);
	}

	private <T> Mono<T> counted(CheckDeadline deadline, Function<AsyncBucketProxy, CompletableFuture<T>> call, String key,
			BucketConfiguration configuration) {
		Mono<Void> held = Mono.defer(() -> {
			Duration left = deadline.remaining();
			return left.isZero() ? Mono.empty() : hold.released(left).then();
		});
		return held.then(Mono.defer(() -> connected))
			.timeout(CONNECT_TIMEOUT)
			.flatMap(open -> within(deadline, () -> call.apply(bucket(open, key, configuration)))
				.doOnError(hold::failed));
	}

	/** Redis's answer to {@code call}, asked only when the deadline leaves time for it, and waited for that long. */
	private static <T> Mono<T> within(CheckDeadline deadline, Supplier<CompletableFuture<T>> call) {
		return Mono.defer(() -> {
			Duration left = deadline.remaining();
			if (left.isZero()) {
				return Mono.error(new TimeoutException("the rate-limit check had no time left for Redis"));
			}
			return Mono.fromFuture(call).timeout(left);
		});
	}

	private static AsyncBucketProxy bucket(Connected open, String key, BucketConfiguration configuration) {
		byte[] redisKey = (KEY_PREFIX + key).getBytes(StandardCharsets.UTF_8);
		return open.buckets().get(key, unused -> open.manager().builder()
			.withOptimization(Optimizations.batching())
			.build(redisKey, () -> CompletableFuture.completedFuture(configuration)));
	}

	@Override
	public String name() {
		return "rate-limits";
	}

	/**
	 * The buckets' own connection is open and answers a PING (on a Cluster: every master that serves hash slots, each
	 * connection opened); opens it when it is not.
	 */
	@Override
	public Mono<Void> ready() {
		return Mono.defer(() -> connected).then(Mono.defer(() -> Mono.fromCompletionStage(ping.get()))).then();
	}

	@Override
	public void close() {
		StatefulConnection<byte[], byte[]> open = connection;
		if (open != null) {
			open.closeAsync();
		}
	}

}
