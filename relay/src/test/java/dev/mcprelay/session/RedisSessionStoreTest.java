package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import dev.mcprelay.Sha256;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RedisServerProcess;
import io.lettuce.core.cluster.SlotHash;

/**
 * The Redis session store's keys and its end of a session: a session's keys share one hash slot (a Cluster takes a
 * command on all of them); a session its caller's count no longer holds has ended, even when its keys were left
 * behind; and a session an older relay kept under the keys without braces is unknown to this one, and ended with its
 * old keys when its caller's count takes it out. A call held while the Sentinels switch the master goes on when the
 * hold ends, and one held past its bound is answered unavailable without asking Redis, and logged as held, never as
 * Redis not answering.
 */
class RedisSessionStoreTest {

	private static RedisServerProcess redis;

	private static LettuceConnectionFactory connection;

	private static ReactiveStringRedisTemplate template;

	private final List<SessionKey> evicted = new CopyOnWriteArrayList<>();

	@BeforeAll
	static void start() throws Exception {
		RedisServerProcess.installedOrSkip();
		redis = RedisServerProcess.start();
		connection = new LettuceConnectionFactory("127.0.0.1", redis.port());
		connection.afterPropertiesSet();
		connection.start();
		template = new ReactiveStringRedisTemplate(connection);
		// the connection open before the store's first call, which is bounded as a request's is
		template.execute(redisConnection -> redisConnection.ping()).blockLast(Duration.ofSeconds(20));
	}

	@AfterAll
	static void stop() throws Exception {
		if (connection != null) {
			connection.destroy();
		}
		if (redis != null) {
			redis.close();
		}
	}

	@Test
	void everyKeyOfASessionSharesOneHashSlot() {
		for (String id : List.of("session-1", "another-session-id", "{braces}-in-an-id")) {
			String session = RedisSessionKeys.session(new SessionKey("github", id));
			assertThat(RedisSessionKeys.all(session)).as(session).hasSize(3)
				.allSatisfy(key -> assertThat(SlotHash.getSlot(key)).as(key).isEqualTo(SlotHash.getSlot(session)));
			assertThat(session).as("the id is kept as its hash").doesNotContain(id);
		}
		assertThat(List.of("a", "b", "c", "d", "e", "f", "g", "h").stream()
			.map(id -> SlotHash.getSlot(RedisSessionKeys.session(new SessionKey("github", id))))
			.distinct()).as("the sessions of one server spread over the slots").hasSizeGreaterThan(1);
	}

	@Test
	void aSessionTakenOutOfItsCallersCountHasEndedThoughItsKeysAreLeft() {
		RedisSessionStore store = store(3);
		SessionKey key = new SessionKey("acme", "carol-1");
		store.open(key, "carol").block();
		store.expose(key, List.of("echo")).block();
		String session = RedisSessionKeys.session(key);

		// what a replica leaves when it counts a newer session and fails before deleting this one's keys
		template.opsForZSet().remove(RedisSessionKeys.callers("carol"), session).block();

		assertThat(store.find(key).blockOptional()).as("no longer counted: ended").isEmpty();
		assertThat(template.countExistingKeys(RedisSessionKeys.all(session)).block())
			.as("the lookup deleted what was left of it").isZero();
	}

	@Test
	void aSessionOfAnOlderRelayIsUnknownAndEndedWithItsKeysWhenItsCallerOpensPastTheLimit() {
		String old = RedisSessionKeys.PREFIX + "acme:" + Sha256.hex("dave-old");
		template.opsForValue().set(old, "dave").block();
		template.opsForSet().add(old + ":tools", "echo").block();
		template.opsForZSet().add(RedisSessionKeys.callers("dave"), old, 1).block();
		RedisSessionStore store = store(2);

		assertThat(store.find(new SessionKey("acme", "dave-old")).blockOptional())
			.as("kept under the keys without braces: unknown here, so the client opens a new session").isEmpty();

		store.open(new SessionKey("acme", "dave-1"), "dave").block();
		store.open(new SessionKey("acme", "dave-2"), "dave").block();

		assertThat(evicted).as("the old session was dave's oldest").containsExactly(new SessionKey("acme", "<ended>"));
		assertThat(template.countExistingKeys(List.of(old, old + ":tools")).block()).as("its old keys are gone").isZero();
		assertThat(store.find(new SessionKey("acme", "dave-1")).blockOptional()).isPresent();
		assertThat(store.find(new SessionKey("acme", "dave-2")).blockOptional()).isPresent();
	}

	@Test
	void aCallHeldForAMasterSwitchPastItsBoundIsLoggedAsHeldNotAsRedisNotAnswering() {
		SwitchHold switching = new SwitchHold(null);
		RedisSessionStore store = new RedisSessionStore(template, Duration.ofHours(1), 5, evicted::add, () -> {
		}, RedisTopology.SENTINEL, switching::released);
		SessionKey key = new SessionKey("acme", "held-1");
		int mark = CapturedLogs.all().size();

		assertThatThrownBy(() -> store.open(key, "erin").block(Duration.ofSeconds(10)))
			.isInstanceOf(SessionStoreUnavailableException.class);

		assertThat(CapturedLogs.since(mark)).as("what the store logged")
			.anyMatch(line -> line.startsWith("WARN ") && line.matches("(?s).*is answered 503: held while the Sentinels "
					+ "switch the store's master, longer than the call's bound of \\d+ ms: not asked of Redis.*"))
			.noneMatch(line -> line.contains("no answer in time"));
		assertThat(template.hasKey(RedisSessionKeys.session(key)).block()).as("not asked of Redis").isFalse();
		assertThat(switching.end()).as("what the end of the hold says")
			.matches("held \\d+ ms; 1 call waited: 0 go on now, 1 gave up first .*");
	}

	@Test
	void aCallHeldForAMasterSwitchGoesOnWhenItEnds() throws Exception {
		SwitchHold switching = new SwitchHold(null);
		RedisSessionStore store = new RedisSessionStore(template, Duration.ofHours(1), 5, evicted::add, () -> {
		}, RedisTopology.SENTINEL, switching::released);
		SessionKey key = new SessionKey("acme", "held-2");

		CompletableFuture<Void> opening = store.open(key, "frank").toFuture();
		Thread.sleep(300);
		assertThat(opening).as("held").isNotDone();
		switching.end();

		opening.get(5, TimeUnit.SECONDS);
		assertThat(store.find(key).blockOptional()).as("opened once the hold ended").isPresent();
	}

	private RedisSessionStore store(int maxPerCaller) {
		return new RedisSessionStore(template, Duration.ofHours(1), maxPerCaller, evicted::add, () -> {
		}, RedisTopology.STANDALONE);
	}

}
