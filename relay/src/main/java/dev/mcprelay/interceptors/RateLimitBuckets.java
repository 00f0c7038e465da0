package dev.mcprelay.interceptors;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import reactor.core.publisher.Mono;

/**
 * Where rate-limit budgets live: {@link LocalRateLimitBuckets} in this process (the default), or
 * {@link RedisRateLimitBuckets} shared by every replica ({@code mcp-relay.sessions.store: redis}). Both are
 * Bucket4j token buckets; neither blocks the calling thread.
 */
public interface RateLimitBuckets {

	/**
	 * Takes one token from bucket {@code key}, creating it with {@code configuration} if it does not exist, within
	 * what is left of the check's {@code deadline} (a store that does not answer in time fails the check).
	 *
	 * @return whether a token was taken and, if not, how long until one is there; an error when the store cannot be
	 * reached, or not within the deadline
	 */
	Mono<ConsumptionProbe> tryConsume(String key, BucketConfiguration configuration, CheckDeadline deadline);

	/**
	 * Gives back a token taken from bucket {@code key}: the request it was taken for was refused by another rule, so it
	 * spent nothing. Best effort, within what is left of {@code deadline}: a bucket that is gone is full anyway, and a
	 * failure costs the caller one token.
	 */
	default Mono<Void> refund(String key, BucketConfiguration configuration, CheckDeadline deadline) {
		return Mono.empty();
	}

}
