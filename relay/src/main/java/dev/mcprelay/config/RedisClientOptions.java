package dev.mcprelay.config;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.lettuce.core.ClientOptions;

/**
 * How the relay's Redis client (shared state: rate-limit buckets, sessions) behaves while Redis is away: commands
 * are refused at once instead of being buffered until it comes back. The relay bounds every Redis call and carries on
 * without it (rate limits fail open), so an answer now is worth more than an answer later; and Lettuce 6.6 can leave
 * a buffered write's lock count behind when a connection drops mid-write, after which closing the client spins
 * forever (lettuce issue 3880): a relay that lost Redis could then never shut down.
 */
@Configuration(proxyBeanMethods = false)
class RedisClientOptions {

	@Bean
	LettuceClientConfigurationBuilderCustomizer rejectCommandsWhileDisconnected() {
		return builder -> {
			ClientOptions current = builder.build().getClientOptions().orElseGet(ClientOptions::create);
			builder.clientOptions(current.mutate()
				.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
				.build());
		};
	}

}
