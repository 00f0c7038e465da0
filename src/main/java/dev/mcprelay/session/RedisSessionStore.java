package dev.mcprelay.session;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Collection;
import java.util.HexFormat;
import java.util.stream.Collectors;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Sessions in Redis, shared by every replica ({@code mcp-relay.sessions.store: redis}, {@code spring.data.redis.*}):
 * per session a key {@value #PREFIX}{@code <server>:<sha256 of the id>} holding its caller, and the same key with
 * {@code :tools} for the set of exposed tools (added to with {@code SADD}, so two replicas searching at once both
 * count). Both expire after the idle timeout, renewed on every use. Each call is bounded by {@link #TIMEOUT}.
 */
final class RedisSessionStore implements SessionStore {

	static final String PREFIX = "mcp-relay:session:";

	/** The longest a replica waits for Redis on one request. */
	static final Duration TIMEOUT = Duration.ofSeconds(1);

	/** Stored for a session whose caller the front door did not name. */
	private static final String NOBODY = "";

	private final ReactiveStringRedisTemplate redis;

	private final Duration idleTimeout;

	RedisSessionStore(ReactiveStringRedisTemplate redis, Duration idleTimeout) {
		this.redis = redis;
		this.idleTimeout = idleTimeout;
	}

	@Override
	public Mono<Void> open(SessionKey key, String callerId) {
		return bounded(redis.opsForValue().set(key(key), callerId == null ? NOBODY : callerId, idleTimeout).then());
	}

	@Override
	public Mono<SessionState> find(SessionKey key) {
		String session = key(key);
		String tools = session + ":tools";
		return bounded(redis.opsForValue().getAndExpire(session, idleTimeout).flatMap(caller -> redis.opsForSet()
			.members(tools)
			.collect(Collectors.toSet())
			.flatMap(exposed -> redis.expire(tools, idleTimeout)
				.thenReturn(new SessionState(caller.isEmpty() ? null : caller, exposed)))));
	}

	@Override
	public Mono<Void> expose(SessionKey key, Collection<String> tools) {
		if (tools.isEmpty()) {
			return Mono.empty();
		}
		String set = key(key) + ":tools";
		return bounded(redis.opsForSet().add(set, tools.toArray(String[]::new))
			.then(redis.expire(set, idleTimeout))
			.then());
	}

	/**
	 * The call, subscribed off the event loop (the first use opens the client's shared connection, and Lettuce waits
	 * for that), bounded by {@link #TIMEOUT}, its failures as {@link SessionStoreUnavailableException}.
	 */
	private static <T> Mono<T> bounded(Mono<T> call) {
		return call.subscribeOn(Schedulers.boundedElastic())
			.timeout(TIMEOUT).onErrorMap(error -> !(error instanceof SessionStoreUnavailableException),
				SessionStoreUnavailableException::new);
	}

	private static String key(SessionKey key) {
		return PREFIX + key.server() + ":" + sha256(key.id());
	}

	private static String sha256(String id) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
