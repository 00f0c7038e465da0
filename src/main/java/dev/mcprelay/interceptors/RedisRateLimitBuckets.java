package dev.mcprelay.interceptors;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Rate-limit buckets in Redis, shared by every replica: Bucket4j's Lettuce integration (compare-and-swap on one key
 * per bucket, {@value #KEY_PREFIX}{@code <rule>|<server>|<who>}), over the Redis that {@code spring.data.redis.*}
 * configures. A bucket's key expires once it would be full again, plus {@code sessions.idle-timeout}.
 *
 * <p>The connection is opened on first use (off the event loop) and re-established by Lettuce when Redis comes back;
 * each check is bounded by {@value #TIMEOUT_MILLIS} ms, so a Redis that is away fails the check quickly instead of
 * holding requests.
 */
final class RedisRateLimitBuckets implements RateLimitBuckets, AutoCloseable {

	static final String KEY_PREFIX = "mcp-relay:rate-limit:";

	static final long TIMEOUT_MILLIS = 1000;

	/** What Reactor's {@code cache} takes for "never expires". */
	private static final Duration FOREVER = Duration.ofMillis(Long.MAX_VALUE);

	private final Mono<AsyncProxyManager<byte[]>> proxyManager;

	private volatile StatefulRedisConnection<byte[], byte[]> connection;

	RedisRateLimitBuckets(LettuceConnectionFactory redis, Duration idleTimeout) {
		this.proxyManager = Mono.fromCallable(() -> {
			connection = ((RedisClient) redis.getRequiredNativeClient()).connect(ByteArrayCodec.INSTANCE);
			return Bucket4jLettuce.casBasedBuilder(connection)
				.expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(idleTimeout))
				.build()
				.asAsync();
		}).subscribeOn(Schedulers.boundedElastic()).cache(manager -> FOREVER, error -> Duration.ZERO,
				() -> Duration.ZERO);
	}

	@Override
	public Mono<ConsumptionProbe> tryConsume(String key, BucketConfiguration configuration) {
		byte[] redisKey = (KEY_PREFIX + key).getBytes(StandardCharsets.UTF_8);
		return proxyManager.flatMap(manager -> Mono.fromFuture(() -> manager.builder()
			.build(redisKey, () -> CompletableFuture.completedFuture(configuration))
			.tryConsumeAndReturnRemaining(1)))
			.timeout(Duration.ofMillis(TIMEOUT_MILLIS));
	}

	@Override
	public void close() {
		StatefulRedisConnection<byte[], byte[]> open = connection;
		if (open != null) {
			open.closeAsync();
		}
	}

}
