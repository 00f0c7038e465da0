package dev.mcprelay.session;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import dev.mcprelay.OffEventLoop;
import reactor.core.publisher.Mono;

/**
 * Sessions in Redis, shared by every replica ({@code mcp-relay.sessions.store: redis}, {@code spring.data.redis.*}),
 * whether Redis runs as one server, behind Sentinel or as a Cluster: per session its caller, the set of tools it
 * exposed (added to with {@code SADD}, so two replicas searching at once both count) and, for a virtual server's
 * session, the hash of what it keeps per member, under keys that share one hash slot ({@link RedisSessionKeys}). All
 * expire after the idle timeout, renewed on every use.
 *
 * <p>Each caller's sessions are counted in a sorted set, scored by Redis's own clock when they open (replicas' clocks
 * may disagree), which expires with them and is renewed whenever one of them is used. Past
 * {@code sessions.max-per-caller}, the script that counts a new session takes the caller's oldest out of the set, in
 * one step that two replicas cannot interleave; that script touches the set alone (its one declared key), so a Cluster
 * runs it whatever slots the sessions are in. A session taken out of its caller's set has ended: a lookup that finds it
 * no longer counted answers that it is unknown (and deletes what is left of it), so the session ends even when deleting
 * its keys right after the script fails. Anonymous sessions are not counted. Each call is bounded by {@link #TIMEOUT}.
 */
final class RedisSessionStore implements SessionStore {

	/** The longest a replica waits for Redis on one request. */
	static final Duration TIMEOUT = Duration.ofSeconds(1);

	private static final Logger log = LoggerFactory.getLogger(RedisSessionStore.class);

	private static final long LOG_INTERVAL_NANOS = Duration.ofMinutes(1).toNanos();

	/** Stored for a session whose caller the front door did not name. */
	private static final String NOBODY = "";

	/**
	 * Counts a session as its caller's newest and takes the caller's oldest out past the limit: KEYS[1] the caller's
	 * sorted set of session keys, ARGV the session's key, the limit and the set's expiry in milliseconds. Returns the
	 * session keys it took out, which have ended.
	 */
	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> ADMIT = RedisScript.of(String.join("\n",
			"local now = redis.call('TIME')",
			"redis.call('ZADD', KEYS[1], now[1] * 1000000 + now[2], ARGV[1])",
			"local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[2])",
			"local ended = {}",
			"if over > 0 then",
			"  local popped = redis.call('ZPOPMIN', KEYS[1], over)",
			"  for i = 1, #popped, 2 do",
			"    ended[#ended + 1] = popped[i]",
			"  end",
			"end",
			"redis.call('PEXPIRE', KEYS[1], ARGV[3])",
			"return ended"), List.class);

	/**
	 * Whether a session is still counted for its caller, renewing the count when it is: KEYS[1] the caller's sorted
	 * set, ARGV the session's key and the set's expiry in milliseconds. 1 or 0.
	 */
	private static final RedisScript<Long> COUNTED = RedisScript.of(String.join("\n",
			"if redis.call('ZSCORE', KEYS[1], ARGV[1]) then",
			"  redis.call('PEXPIRE', KEYS[1], ARGV[2])",
			"  return 1",
			"end",
			"return 0"), Long.class);

	private final ReactiveStringRedisTemplate redis;

	private final Duration idleTimeout;

	private final String idleMillis;

	private final int maxPerCaller;

	private final Consumer<SessionKey> onEvicted;

	private final Runnable onUnavailable;

	private final RedisTopology topology;

	private final StoreHold hold;

	private final AtomicLong lastWarning = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);

	/**
	 * @param onEvicted told of each session ended because its caller holds more than {@code maxPerCaller}
	 * @param onUnavailable told of each call that failed or timed out (it is answered with
	 * {@link SessionStoreUnavailableException}), and of each session ended that way whose keys could not be deleted
	 * @param topology how Redis runs, for what the log tells an operator to check
	 */
	RedisSessionStore(ReactiveStringRedisTemplate redis, Duration idleTimeout, int maxPerCaller,
			Consumer<SessionKey> onEvicted, Runnable onUnavailable, RedisTopology topology) {
		this(redis, idleTimeout, maxPerCaller, onEvicted, onUnavailable, topology, StoreHold.NEVER);
	}

	/**
	 * @param hold what a call waits for before it uses Redis (the Sentinels promoting a replica:
	 * {@link SentinelMasterSwitches}), within the call's bound
	 */
	RedisSessionStore(ReactiveStringRedisTemplate redis, Duration idleTimeout, int maxPerCaller,
			Consumer<SessionKey> onEvicted, Runnable onUnavailable, RedisTopology topology, StoreHold hold) {
		this.hold = hold;
		this.redis = redis;
		this.idleTimeout = idleTimeout;
		this.idleMillis = String.valueOf(Math.max(1, idleTimeout.toMillis()));
		this.maxPerCaller = maxPerCaller;
		this.onEvicted = onEvicted;
		this.onUnavailable = onUnavailable;
		this.topology = topology;
	}

	@Override
	public Mono<Void> open(SessionKey key, String callerId) {
		String session = RedisSessionKeys.session(key);
		Mono<Void> stored = command(redis.opsForValue().set(session, callerId == null ? NOBODY : callerId, idleTimeout))
			.then();
		if (callerId == null) {
			return bounded(stored);
		}
		Mono<Void> counted = command(redis.execute(ADMIT, List.of(RedisSessionKeys.callers(callerId)),
				List.of(session, String.valueOf(maxPerCaller), idleMillis)).collectList())
			.flatMapIterable(all -> all)
			.flatMapIterable(ended -> (List<?>) ended)
			.map(String::valueOf)
			.concatMap(ended -> {
				onEvicted.accept(RedisSessionKeys.sessionKeyOf(ended));
				return forget(ended);
			})
			.then();
		return bounded(stored.then(counted));
	}

	@Override
	public Mono<SessionState> find(SessionKey key) {
		String session = RedisSessionKeys.session(key);
		String tools = RedisSessionKeys.tools(session);
		String members = RedisSessionKeys.members(session);
		return bounded(command(redis.opsForValue().getAndExpire(session, idleTimeout)).flatMap(caller -> Mono.zip(
				command(redis.opsForSet().members(tools).collect(Collectors.toSet())),
				command(redis.<String, String>opsForHash().entries(members).collectMap(Map.Entry::getKey, Map.Entry::getValue)),
				command(redis.expire(tools, idleTimeout)), command(redis.expire(members, idleTimeout)),
				// the caller's count lives as long as its sessions: renewed by their use, not only when one opens
				caller.isEmpty() ? Mono.just(1L)
						: command(redis.execute(COUNTED, List.of(RedisSessionKeys.callers(caller)),
								List.of(session, idleMillis)).next()))
			.flatMap(kept -> kept.getT5() == 1L
					? Mono.just(new SessionState(caller.isEmpty() ? null : caller, kept.getT1(), kept.getT2()))
					// its caller's newer sessions ended it; the replica that ended it did not delete it (yet)
					: forget(session).then(Mono.empty()))));
	}

	@Override
	public Mono<Boolean> exists(SessionKey key) {
		return bounded(command(redis.hasKey(RedisSessionKeys.session(key))));
	}

	@Override
	public Mono<Boolean> holds(SessionKey key, String member) {
		String members = RedisSessionKeys.members(RedisSessionKeys.session(key));
		return bounded(command(redis.<String, String>opsForHash().hasKey(members, member)));
	}

	@Override
	public Mono<Void> join(SessionKey key, String member, String state) {
		String members = RedisSessionKeys.members(RedisSessionKeys.session(key));
		return bounded(command(redis.<String, String>opsForHash().put(members, member, state))
			.then(command(redis.expire(members, idleTimeout)))
			.then());
	}

	@Override
	public Mono<Void> end(SessionKey key, String callerId) {
		String session = RedisSessionKeys.session(key);
		Mono<Void> deleted = command(redis.delete(RedisSessionKeys.all(session).toArray(String[]::new))).then();
		Mono<Void> uncounted = callerId == null ? Mono.empty()
				: command(redis.opsForZSet().remove(RedisSessionKeys.callers(callerId), session)).then();
		return bounded(deleted.then(uncounted));
	}

	@Override
	public Mono<Void> expose(SessionKey key, Collection<String> tools) {
		if (tools.isEmpty()) {
			return Mono.empty();
		}
		String set = RedisSessionKeys.tools(RedisSessionKeys.session(key));
		return bounded(command(redis.opsForSet().add(set, tools.toArray(String[]::new)))
			.then(command(redis.expire(set, idleTimeout)))
			.then());
	}

	/**
	 * Deletes the keys of a session that has already ended (its caller's count no longer holds it): one command, its
	 * keys in one slot (an older session's keys are deleted per slot by the client). Where that fails, what is left
	 * expires with the idle timeout and is deleted by the next lookup; the failure is counted, not the caller's.
	 */
	private Mono<Void> forget(String session) {
		return command(redis.delete(RedisSessionKeys.all(session).toArray(String[]::new))).then()
			.onErrorResume(error -> {
				onUnavailable.run();
				return Mono.empty();
			});
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
	 * The call, made once the store is not {@link StoreHold held} (at once, but for a Sentinel failover's promotion),
	 * subscribed off the event loop (the first use opens the client's shared connection, and Lettuce waits for that),
	 * bounded by {@link #TIMEOUT} with its wait for the hold (a wait that takes it all, or leaves the new master too
	 * little to answer in, fails with {@link StoreHeldException}, which says so), its failures as
	 * {@link SessionStoreUnavailableException}, counted and logged at WARN (once a minute at most) with what to check.
	 */
	private <T> Mono<T> bounded(Mono<T> call) {
		return Mono.defer(() -> {
			long start = System.nanoTime();
			return Mono.defer(() -> hold.released(left(start)))
				.flatMap(held -> call.timeout(left(start))
					.onErrorMap(TimeoutException.class,
							silent -> held.isZero() ? silent : new StoreHeldException(held, TIMEOUT, silent)))
				.subscribeOn(OffEventLoop.SCHEDULER);
		})
			.doOnError(this::failed)
			.onErrorMap(error -> !(error instanceof SessionStoreUnavailableException),
					SessionStoreUnavailableException::new);
	}

	/** What is left of {@link #TIMEOUT} since {@code start}. */
	private static Duration left(long start) {
		Duration left = TIMEOUT.minusNanos(System.nanoTime() - start);
		return left.isNegative() ? Duration.ZERO : left;
	}

	private void failed(Throwable error) {
		hold.failed(error);
		onUnavailable.run();
		long now = System.nanoTime();
		long last = lastWarning.get();
		if (now - last >= LOG_INTERVAL_NANOS && lastWarning.compareAndSet(last, now)) {
			log.warn("The session store could not be used, so what needs it (virtual servers, tool search, legacy SSE "
					+ "sessions) is answered 503: {}", StoreFailures.describe(error, topology));
		}
	}

}
