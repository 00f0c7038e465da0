package dev.mcprelay.session;

import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SessionStoreKind;
import dev.mcprelay.config.SessionsProperties;
import dev.mcprelay.metrics.KeptCounters;
import dev.mcprelay.metrics.RelayMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** The session store {@code mcp-relay.sessions.store} names: memory, or Redis ({@code spring.data.redis.*}). */
@Configuration(proxyBeanMethods = false)
public class SessionStoreConfiguration {

	private static final Logger log = LoggerFactory.getLogger(SessionStoreConfiguration.class);

	private static final String EVICTED_DESCRIPTION = "Sessions ended by the relay, by reason";

	@Bean
	SessionStore sessionStore(RelayProperties properties, ObjectProvider<ReactiveStringRedisTemplate> redis,
			ObjectProvider<LettuceConnectionFactory> connections, MeterRegistry registry,
			ObjectProvider<SentinelMasterSwitches> switches) {
		SessionsProperties sessions = properties.sessions();
		Consumer<SessionKey> evicted = evictedSessions(registry);
		// at 0 from start-up for every server and virtual server a session can be kept for, so that the first eviction
		// shows as an increase
		KeptCounters declared = new KeptCounters(registry);
		java.util.stream.Stream.concat(properties.servers().keySet().stream(), properties.virtualServers().keySet().stream())
			.forEach(id -> declared.declare(RelayMeters.SESSIONS_EVICTED, EVICTED_DESCRIPTION, RelayMeters.SERVER, id,
					RelayMeters.REASON, "max_per_caller"));
		if (sessions.store() == SessionStoreKind.REDIS) {
			Counter errors = Counter.builder(RelayMeters.SESSION_STORE_ERRORS)
				.description("Calls to the shared session store that failed or timed out")
				.register(registry);
			return new RedisSessionStore(redis.getObject(), sessions.idleTimeout(), sessions.maxPerCaller(), evicted,
					errors::increment, RedisTopology.of(connections.getIfAvailable()), SentinelMasterSwitches.of(switches));
		}
		return new MemorySessionStore(sessions.idleTimeout(), sessions.maxPerCaller(), evicted);
	}

	/**
	 * Counts a session ended because its caller opened more than {@code sessions.max-per-caller}
	 * ({@code mcp.relay.sessions.evicted}, by server and reason), and says so at DEBUG (never the session id).
	 */
	public static Consumer<SessionKey> evictedSessions(MeterRegistry registry) {
		KeptCounters counters = new KeptCounters(registry);
		return key -> {
			log.debug("A session of '{}' ended: its caller opened more than sessions.max-per-caller", key.server());
			counters.increment(RelayMeters.SESSIONS_EVICTED, EVICTED_DESCRIPTION,
					RelayMeters.SERVER, key.server(), RelayMeters.REASON, "max_per_caller");
		};
	}

}
