package dev.mcprelay.interceptors;

import java.time.Duration;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import reactor.core.publisher.Mono;

/**
 * Rate-limit buckets in this process: lock-free Bucket4j buckets in a Caffeine cache that forgets a bucket nobody
 * used for {@code sessions.idle-timeout} (a forgotten bucket is full again, as it would be by then anyway) and holds
 * at most {@value #MAX_BUCKETS} of them, so that callers with ever new ids cannot grow it without bound.
 */
final class LocalRateLimitBuckets implements RateLimitBuckets {

	static final long MAX_BUCKETS = 100_000;

	private final Cache<String, Bucket> buckets;

	LocalRateLimitBuckets(Duration idleTimeout) {
		this.buckets = Caffeine.newBuilder().expireAfterAccess(idleTimeout).maximumSize(MAX_BUCKETS).build();
	}

	@Override
	public Mono<ConsumptionProbe> tryConsume(String key, BucketConfiguration configuration, CheckDeadline deadline) {
		Bucket bucket = buckets.get(key, k -> {
			var builder = Bucket.builder();
			for (var bandwidth : configuration.getBandwidths()) {
				builder.addLimit(bandwidth);
			}
			return builder.build();
		});
		return Mono.just(bucket.tryConsumeAndReturnRemaining(1));
	}

	@Override
	public Mono<Void> refund(String key, BucketConfiguration configuration, CheckDeadline deadline) {
		return Mono.fromRunnable(() -> {
			Bucket bucket = buckets.getIfPresent(key);
			if (bucket != null) {
				bucket.addTokens(1);
			}
		});
	}

}
