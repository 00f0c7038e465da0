package dev.mcprelay.session;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import dev.mcprelay.Sha256;
import dev.mcprelay.OffEventLoop;
import reactor.core.publisher.Mono;

/**
 * Sessions in Redis, shared by every replica ({@code mcp-relay.sessions.store: redis}, {@code spring.data.redis.*}):
 * per session a key {@value #PREFIX}{@code <server>:<sha256 of the id>} holding its caller, and the same key with
 * {@code :tools} for the set of exposed tools (added to with {@code SADD}, so two replicas searching at once both
 * count), and with {@code :members} for a virtual server's session the hash of what it keeps per member. All expire
 * after the idle timeout, renewed on every use. Each caller's sessions are counted in a sorted set
 * ({@value #CALLERS}{@code <sha256 of the caller id>}): past {@code sessions.max-per-caller} the caller's oldest
 * sessions are deleted by the same script that counts the new one, so replicas opening at once keep the limit. Each
 * call is bounded by {@link #TIMEOUT}.
 */
final class RedisSessionStore implements SessionStore {

	static final String PREFIX = "mcp-relay:session:";

	/** The sorted set of a caller's sessions: this prefix and the SHA-256 of the caller's id. */
	static final String CALLERS = "mcp-relay:caller-sessions:";

	/** The longest a replica waits for Redis on one request. */
	static final Duration TIMEOUT = Duration.ofSeconds(1);

	/** Stored for a session whose caller the front door did not name. */
	private static final String NOBODY = "";

	/**
	 * Counts a session as its caller's newest and ends the caller's oldest past the limit, in one step that two
	 * replicas cannot interleave: KEYS[1] the caller's sorted set of session keys (scored by opening time), ARGV the
	 * session's key, the time, the limit and the expiry in seconds. Returns the session keys it ended.
	 */
	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> ADMIT = RedisScript.of(String.join("\n",
			"redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])",
			"local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])",
			"local ended = {}",
			"if over > 0 then",
			"  local popped = redis.call('ZPOPMIN', KEYS[1], over)",
			"  for i = 1, #popped, 2 do",
			"    redis.call('DEL', popped[i], popped[i] .. ':tools', popped[i] .. ':members')",
			"    table.insert(ended, popped[i])",
			"  end",
			"end",
			"redis.call('EXPIRE', KEYS[1], ARGV[4])",
			"return ended"), List.class);

	private final ReactiveStringRedisTemplate redis;

	private final Duration idleTimeout;

	private final int maxPerCaller;

	private final Consumer<SessionKey> onEvicted;

	private final Runnable onUnavailable;

	/**
	 * @param onEvicted told of each session ended because its caller holds more than {@code maxPerCaller}
	 * @param onUnavailable told of each call that failed or timed out (it is answered with
	 * {@link SessionStoreUnavailableException})
	 */
	RedisSessionStore(ReactiveStringRedisTemplate redis, Duration idleTimeout, int maxPerCaller,
			Consumer<SessionKey> onEvicted, Runnable onUnavailable) {
		this.redis = redis;
		this.idleTimeout = idleTimeout;
		this.maxPerCaller = maxPerCaller;
		this.onEvicted = onEvicted;
		this.onUnavailable = onUnavailable;
	}

	@Override
	public Mono<Void> open(SessionKey key, String callerId) {
		Mono<Void> stored = command(redis.opsForValue().set(key(key), callerId == null ? NOBODY : callerId, idleTimeout)).then();
		if (callerId == null) {
			return bounded(stored);
		}
		Mono<Void> counted = command(redis.execute(ADMIT, List.of(CALLERS + Sha256.hex(callerId)), List.of(key(key),
				String.valueOf(System.currentTimeMillis()), String.valueOf(maxPerCaller),
				String.valueOf(Math.max(1, idleTimeout.toSeconds())))).collectList())
			.flatMapIterable(all -> all)
			.flatMapIterable(ended -> (List<?>) ended)
			.doOnNext(ended -> onEvicted.accept(sessionKeyOf(String.valueOf(ended))))
			.then();
		return bounded(stored.then(counted));
	}

	/** The server of a stored session key; the id is only kept as its hash, so the key says no more. */
	private static SessionKey sessionKeyOf(String stored) {
		String rest = stored.substring(PREFIX.length());
		return new SessionKey(rest.substring(0, rest.indexOf(':')), "<ended>");
	}

	@Override
	public Mono<SessionState> find(SessionKey key) {
		String session = key(key);
		String tools = session + ":tools";
		String members = session + ":members";
		return bounded(command(redis.opsForValue().getAndExpire(session, idleTimeout)).flatMap(caller -> Mono.zip(
				command(redis.opsForSet().members(tools).collect(Collectors.toSet())),
				command(redis.<String, String>opsForHash().entries(members).collectMap(Map.Entry::getKey, Map.Entry::getValue)),
				command(redis.expire(tools, idleTimeout)), command(redis.expire(members, idleTimeout)))
			.map(kept -> new SessionState(caller.isEmpty() ? null : caller, kept.getT1(), kept.getT2()))));
	}

	@Override
	public Mono<Boolean> exists(SessionKey key) {
		return bounded(command(redis.hasKey(key(key))));
	}

	@Override
	public Mono<Void> join(SessionKey key, String member, String state) {
		String members = key(key) + ":members";
		return bounded(command(redis.<String, String>opsForHash().put(members, member, state))
			.then(command(redis.expire(members, idleTimeout)))
			.then());
	}

	@Override
	public Mono<Void> end(SessionKey key, String callerId) {
		String session = key(key);
		Mono<Void> deleted = command(redis.delete(session, session + ":tools", session + ":members")).then();
		Mono<Void> uncounted = callerId == null ? Mono.empty()
				: command(redis.opsForZSet().remove(CALLERS + Sha256.hex(callerId), session)).then();
		return bounded(deleted.then(uncounted));
	}

	@Override
	public Mono<Void> expose(SessionKey key, Collection<String> tools) {
		if (tools.isEmpty()) {
			return Mono.empty();
		}
		String set = key(key) + ":tools";
		return bounded(command(redis.opsForSet().add(set, tools.toArray(String[]::new)))
			.then(command(redis.expire(set, idleTimeout)))
			.then());
	}

	/**
	 * One Redis command, subscribed off the event loops: the template takes a lock of Spring Data's connection factory
	 * for every command it starts, and a command started where the previous one completed would take it on Lettuce's
	 * event loop.
	 */
	private static <T> Mono<T> command(Mono<T> command) {
		return command.subscribeOn(OffEventLoop.SCHEDULER);
	}

	/**
	 * The call, subscribed off the event loop (the first use opens the client's shared connection, and Lettuce waits
	 * for that), bounded by {@link #TIMEOUT}, its failures as {@link SessionStoreUnavailableException}.
	 */
	private <T> Mono<T> bounded(Mono<T> call) {
		return call.subscribeOn(OffEventLoop.SCHEDULER)
			.timeout(TIMEOUT)
			.onErrorMap(error -> !(error instanceof SessionStoreUnavailableException),
					SessionStoreUnavailableException::new)
			.doOnError(error -> onUnavailable.run());
	}

	private static String key(SessionKey key) {
		return PREFIX + key.server() + ":" + Sha256.hex(key.id());
	}
}
