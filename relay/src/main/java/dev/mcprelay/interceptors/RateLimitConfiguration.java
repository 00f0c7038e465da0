package dev.mcprelay.interceptors;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SessionStoreKind;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Switches the rate limits on when {@code mcp-relay.rate-limits} has a rule (a relay without rules pays nothing for
 * them), with their buckets where {@code mcp-relay.sessions.store} says: in memory, or in Redis
 * ({@code spring.data.redis.*}) so that replicas share one budget.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(prefix = "mcp-relay", name = "rate-limits[0].limit")
class RateLimitConfiguration {

	@Bean
	RateLimitBuckets rateLimitBuckets(RelayProperties properties, ObjectProvider<LettuceConnectionFactory> redis) {
		return properties.sessions().store() == SessionStoreKind.REDIS
				? new RedisRateLimitBuckets(redis.getObject(), properties.sessions().idleTimeout())
				: new LocalRateLimitBuckets(properties.sessions().idleTimeout());
	}

	@Bean
	RateLimitPolicy rateLimitPolicy(RelayProperties properties, RateLimitBuckets rateLimitBuckets,
			MeterRegistry registry) {
		return new RateLimitPolicy(properties, rateLimitBuckets, registry);
	}

}
