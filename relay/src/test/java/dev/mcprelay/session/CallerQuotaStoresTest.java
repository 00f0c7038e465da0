package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import dev.mcprelay.testsupport.RedisServerProcess;
import reactor.core.publisher.Flux;

/**
 * Sessions are counted per caller in both stores: a caller past {@code max-per-caller} loses its own oldest session,
 * never another caller's; the memory store forgets what expires; two Redis stores (two replicas) opening for one
 * caller at once keep it at the limit.
 */
class CallerQuotaStoresTest {

	@Test
	void aCallerPastItsLimitLosesItsOwnOldestSessionInMemory() {
		List<SessionKey> evicted = new CopyOnWriteArrayList<>();
		MemorySessionStore store = new MemorySessionStore(Duration.ofHours(1), 3, evicted::add);
		SessionKey bobs = key("bob-1");
		store.open(bobs, "bob").block();
		List<SessionKey> alices = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			alices.add(key("alice-" + i));
			store.open(alices.get(i), "alice").block();
		}

		assertThat(store.find(alices.get(0)).blockOptional()).as("alice's oldest ended").isEmpty();
		assertThat(store.find(alices.get(1)).blockOptional()).isEmpty();
		assertThat(store.find(alices.get(4)).blockOptional()).as("her newest stays").isPresent();
		assertThat(store.find(bobs).blockOptional()).as("bob's session is never hers to end").isPresent();
		assertThat(store.heldBy("alice")).isEqualTo(3);
		assertThat(evicted).containsExactly(alices.get(0), alices.get(1));
		store.open(key("anonymous-1"), null).block();
		assertThat(store.heldBy(null)).as("anonymous callers are not counted").isZero();
	}

	@Test
	void whatExpiresIsNoLongerCountedInMemory() throws InterruptedException {
		MemorySessionStore store = new MemorySessionStore(Duration.ofMillis(50), 2, key -> {
		});
		store.open(key("a"), "alice").block();
		store.open(key("b"), "alice").block();
		Thread.sleep(120);
		store.open(key("c"), "alice").block();

		assertThat(store.heldBy("alice")).as("the expired sessions left the caller's count").isLessThanOrEqualTo(1);
	}

	@Test
	void aCallersCountInRedisIsRenewedWhenItsSessionsAreUsed() throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.start()) {
			LettuceConnectionFactory connection = connection(redis);
			try {
				ReactiveStringRedisTemplate template = new ReactiveStringRedisTemplate(connection);
				// the connection open before the store's first call, which is bounded as a request's is
				template.execute(redisConnection -> redisConnection.ping()).blockLast(Duration.ofSeconds(20));
				RedisSessionStore store = new RedisSessionStore(template, Duration.ofHours(1), 2, key -> {
				}, () -> {
				}, RedisTopology.STANDALONE);
				store.open(key("alice-1"), "alice").block();
				String count = RedisSessionKeys.callers("alice");
				template.expire(count, Duration.ofSeconds(5)).block();

				assertThat(store.find(key("alice-1")).blockOptional()).isPresent();

				assertThat(template.getExpire(count).block())
					.as("the count expires with the sessions it counts, renewed by their use")
					.isGreaterThan(Duration.ofMinutes(59));
			}
			finally {
				connection.destroy();
			}
		}
	}

	@Test
	void twoReplicasOpeningForOneCallerKeepItAtTheLimitInRedis() throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.start()) {
			LettuceConnectionFactory first = connection(redis);
			LettuceConnectionFactory second = connection(redis);
			try {
				List<SessionKey> evicted = new CopyOnWriteArrayList<>();
				RedisSessionStore one = new RedisSessionStore(new ReactiveStringRedisTemplate(first), Duration.ofHours(1), 5,
						evicted::add, () -> { }, RedisTopology.STANDALONE);
				RedisSessionStore other = new RedisSessionStore(new ReactiveStringRedisTemplate(second),
						Duration.ofHours(1), 5, evicted::add, () -> { }, RedisTopology.STANDALONE);
				one.open(key("bob-1"), "bob").block();

				Flux.range(0, 40)
					.flatMap(i -> (i % 2 == 0 ? one : other).open(key("alice-" + i), "alice"), 16)
					.blockLast(Duration.ofSeconds(20));

				long alive = Flux.range(0, 40).flatMap(i -> one.find(key("alice-" + i))).count().block();
				assertThat(alive).as("alice holds exactly her limit across both replicas").isEqualTo(5);
				assertThat(evicted).hasSize(35).allSatisfy(key -> assertThat(key.server()).isEqualTo("acme"));
				assertThat(one.find(key("bob-1")).blockOptional()).as("bob's session is untouched").isPresent();
			}
			finally {
				first.destroy();
				second.destroy();
			}
		}
	}

	private static LettuceConnectionFactory connection(RedisServerProcess redis) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory("127.0.0.1", redis.port());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private static SessionKey key(String id) {
		return new SessionKey("acme", id);
	}

}
