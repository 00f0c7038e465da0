package dev.mcprelay.session;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SessionStoreKind;

/** The session store {@code mcp-relay.sessions.store} names: memory, or Redis ({@code spring.data.redis.*}). */
@Configuration(proxyBeanMethods = false)
class SessionStoreConfiguration {

	@Bean
	SessionStore sessionStore(RelayProperties properties, ObjectProvider<ReactiveStringRedisTemplate> redis) {
		return properties.sessions().store() == SessionStoreKind.REDIS
				? new RedisSessionStore(redis.getObject(), properties.sessions().idleTimeout())
				: new MemorySessionStore(properties.sessions().idleTimeout());
	}

}
