package dev.mcprelay.interceptors;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SessionStoreKind;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.session.SentinelMasterSwitches;
import dev.mcprelay.session.StoreConnectionAttempts;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The rate limits of {@code mcp-relay.rate-limits}, whose rules are a part of each configuration snapshot (a reload may
 * add the first rule), with their buckets where {@code mcp-relay.sessions.store} says: in memory, or in Redis
 * ({@code spring.data.redis.*}) so that replicas share one budget. A request no rule counts costs a look at the rules
 * of its snapshot; in memory, no bucket is made until a rule counts a request.
 */
@Configuration(proxyBeanMethods = false)
class RateLimitConfiguration {

	@Bean
	RateLimitBuckets rateLimitBuckets(RelayProperties properties, ObjectProvider<LettuceConnectionFactory> redis,
			ObjectProvider<SentinelMasterSwitches> switches, StoreConnectionAttempts attempts) {
		return properties.sessions().store() == SessionStoreKind.REDIS
				? new RedisRateLimitBuckets(redis.getObject(), properties.sessions().idleTimeout(),
						SentinelMasterSwitches.of(switches), attempts)
				: new LocalRateLimitBuckets(properties.sessions().idleTimeout());
	}

	@Bean
	RateLimitPolicy rateLimitPolicy(RateLimitBuckets rateLimitBuckets, MeterRegistry registry,
			ObjectProvider<LiveConfiguration> live) {
		return new RateLimitPolicy(rateLimitBuckets, registry, live);
	}

}
