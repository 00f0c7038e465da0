package dev.mcprelay.interceptors;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.OffEventLoop;
import dev.mcprelay.session.StoreReadiness;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import reactor.core.publisher.Mono;

/**
 * Rate-limit buckets in Redis, shared by every replica: Bucket4j's Lettuce integration (compare-and-swap on one key
 * per bucket, {@value #KEY_PREFIX}{@code <rule>|<server>|<who>}), over the Redis that {@code spring.data.redis.*}
 * configures. A bucket's key expires once it would be full again, plus {@code sessions.idle-timeout}.
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

	private final Mono<AsyncProxyManager<byte[]>> proxyManager;

	private volatile StatefulRedisConnection<byte[], byte[]> connection;

	/**
	 * One bucket proxy per key, so that concurrent checks of one bucket are batched into one compare-and-swap
	 * (Bucket4j's batching): without it, a burst on one key made every check retry against the others and run past
	 * the check's bound, and a fail-open rule let those through uncounted.
	 */
	private final Cache<String, AsyncBucketProxy> buckets;

	RedisRateLimitBuckets(LettuceConnectionFactory redis, Duration idleTimeout) {
		this.buckets = Caffeine.newBuilder().maximumSize(MAX_BUCKETS).expireAfterAccess(idleTimeout).build();
		this.proxyManager = Mono.fromCallable(() -> {
			connection = ((RedisClient) redis.getRequiredNativeClient()).connect(ByteArrayCodec.INSTANCE);
			return Bucket4jLettuce.casBasedBuilder(connection)
				.expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(idleTimeout))
				.build()
				.asAsync();
		}).subscribeOn(OffEventLoop.SCHEDULER).cache(manager -> FOREVER, error -> Duration.ZERO,
				() -> Duration.ZERO);
	}

	/**
	 * Takes one token. A check waits up to {@link #CONNECT_TIMEOUT} for the connection when it is still being opened
	 * (only the first checks of a relay that started while Redis was away), then for what is left of the check's
	 * deadline for Redis to answer: opening the connection is not a store failure, and a check with no time left does
	 * not ask.
	 */
	@Override
	public Mono<ConsumptionProbe> tryConsume(String key, BucketConfiguration configuration, CheckDeadline deadline) {
		return proxyManager.timeout(CONNECT_TIMEOUT)
			.flatMap(manager -> within(deadline,
					() -> bucket(manager, key, configuration).tryConsumeAndReturnRemaining(1)));
	}

	@Override
	public Mono<Void> refund(String key, BucketConfiguration configuration, CheckDeadline deadline) {
		return proxyManager.timeout(CONNECT_TIMEOUT)
			.flatMap(manager -> within(deadline, () -> bucket(manager, key, configuration).addTokens(1)));
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

	private AsyncBucketProxy bucket(AsyncProxyManager<byte[]> manager, String key, BucketConfiguration configuration) {
		byte[] redisKey = (KEY_PREFIX + key).getBytes(StandardCharsets.UTF_8);
		return buckets.get(key, unused -> manager.builder()
			.withOptimization(Optimizations.batching())
			.build(redisKey, () -> CompletableFuture.completedFuture(configuration)));
	}

	@Override
	public String name() {
		return "rate-limits";
	}

	/** The buckets' own connection is open and answers a PING; opens it when it is not. */
	@Override
	public Mono<Void> ready() {
		return proxyManager.then(Mono.defer(() -> Mono.fromCompletionStage(connection.async().ping()))).then();
	}

	@Override
	public void close() {
		StatefulRedisConnection<byte[], byte[]> open = connection;
		if (open != null) {
			open.closeAsync();
		}
	}

}
