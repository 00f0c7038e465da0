package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;

/**
 * What an operator is told when the store cannot be used names the property to mend: a Sentinel's refusal of its own
 * password is told from the master's, a password Lettuce masked in a URI keeps no trace of its length, and a call held
 * while the Sentinels switch the master says so rather than that Redis did not answer, and a Sentinel's NOPERM names
 * what to grant: the commands when it refused a command, the channels when it refused them. (The
 * messages are Lettuce 7's, as a relay through a Sentinel with {@code requirepass} got them.)
 */
class StoreFailuresTest {

	private static final RedisCommandExecutionException WRONGPASS = new RedisCommandExecutionException(
			"WRONGPASS invalid username-password pair or user is disabled.");

	@Test
	void aSentinelsRefusalNamesTheSentinelsPassword() {
		RedisConnectionException failure = new RedisConnectionException(
				"Cannot connect to a Redis Sentinel: [redis://************@127.0.0.1:18981]", WRONGPASS);

		assertThat(StoreFailures.describe(failure, RedisTopology.SENTINEL))
			.startsWith("a Sentinel refused the password (WRONGPASS")
			.contains("check spring.data.redis.sentinel.password (and spring.data.redis.sentinel.username)");
		assertThat(StoreFailures.describe(new RedisConnectionException("Cannot connect to a Redis Sentinel",
				new RedisCommandExecutionException("NOAUTH Authentication required.")), RedisTopology.SENTINEL))
			.isEqualTo("a Sentinel wants a password and was given none (NOAUTH Authentication required.): set "
					+ "spring.data.redis.sentinel.password");
	}

	@Test
	void theMastersRefusalNamesTheRedisPassword() {
		RedisConnectionException failure = new RedisConnectionException("Unable to connect to 127.0.0.1:18980",
				WRONGPASS);

		assertThat(StoreFailures.describe(failure, RedisTopology.SENTINEL))
			.startsWith("Redis refused the password (WRONGPASS")
			.contains("check spring.data.redis.password (and spring.data.redis.username)");
		assertThat(StoreFailures.describe(failure, RedisTopology.STANDALONE))
			.contains("check spring.data.redis.password");
	}

	@Test
	void aCallHeldForAMasterSwitchSaysSoAndNeverThatRedisDidNotAnswer() {
		assertThat(StoreFailures.describe(new StoreHeldException(Duration.ofSeconds(1)), RedisTopology.SENTINEL))
			.isEqualTo("held while the Sentinels switch the store's master, longer than the call's bound of 1000 ms: "
					+ "not asked of Redis; calls are made again once the new master is named");
		assertThat(StoreFailures.describe(new StoreHeldException(Duration.ofMillis(950), Duration.ofSeconds(1),
				new TimeoutException("Did not observe any item or signal within 50ms")), RedisTopology.SENTINEL))
			.isEqualTo("held 950 ms while the Sentinels switched the store's master, then no answer from the new "
					+ "master in the 50 ms left of the call's bound of 1000 ms");
		assertThat(StoreFailures.describe(new TimeoutException("Did not observe any item or signal within 1000ms"),
				RedisTopology.SENTINEL)).as("a call that was not held").startsWith("no answer in time");
	}

	@Test
	void aMaskedPasswordShowsNoLength() {
		IllegalStateException failure = new IllegalStateException("Cannot retrieve cluster partitions from "
				+ "[redis://*********************@127.0.0.1:46500, rediss://***@127.0.0.1:46501]");

		assertThat(StoreFailures.describe(failure, RedisTopology.CLUSTER))
			.contains("redis://*****@127.0.0.1:46500", "rediss://*****@127.0.0.1:46501")
			.doesNotContain("******");
	}

	@Test
	void aMaskedPasswordAfterAUserNameShowsNoLength() {
		// review 45e: Lettuce's message when no Sentinel of a relay with a Sentinel user could be reached
		IllegalStateException failure = new IllegalStateException("Cannot connect to a Redis Sentinel: "
				+ "[redis://relay:******************@127.0.0.1:23430?timeout=2s, "
				+ "rediss://relay:***@127.0.0.1:23431?timeout=2s]");

		assertThat(StoreFailures.describe(failure, RedisTopology.SENTINEL))
			.contains("redis://relay:*****@127.0.0.1:23430?timeout=2s", "rediss://relay:*****@127.0.0.1:23431")
			.doesNotContain("******");
	}

	@Test
	void aSentinelsRefusalOfTheRelaysUserWhenAskedForTheMasterNamesTheSentinelsPassword() {
		// connectSentinelAsync to one Sentinel: nothing in the error says it was a Sentinel (review 45d F-D)
		RedisConnectionException failure = new RedisConnectionException("Unable to connect to 127.0.0.1:41410",
				WRONGPASS);

		assertThat(FollowedSentinels.reason(failure)).startsWith("a Sentinel refused the password (WRONGPASS")
			.contains("check spring.data.redis.sentinel.password (and spring.data.redis.sentinel.username)")
			.doesNotContain("spring.data.redis.password");
	}

	@Test
	void aSentinelRefusingTheCommandIsToldToGrantTheCommandsNotTheChannels() {
		String command = FollowedSentinels.reason(new RedisCommandExecutionException(
				"NOPERM this user has no permissions to run the 'psubscribe' command"));
		String channels = FollowedSentinels.reason(new RedisCommandExecutionException(
				"NOPERM this user has no permissions to access one of the channels used as arguments"));

		assertThat(command).contains("the commands '+subscribe +psubscribe +ping +sentinel|get-master-addr-by-name +sentinel|master'")
			.doesNotContain("'&*'");
		assertThat(channels).contains("the channels '&*', or '&+switch-master").doesNotContain("+psubscribe");
	}

}
