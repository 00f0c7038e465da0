package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.CapturedLogs;
import io.lettuce.core.RedisConnectionException;

/**
 * A Sentinel's refusals are logged once per reason while it is not followed, also when the reasons alternate (review
 * 45e: a Sentinel down behind a TCP proxy, which accepts the connection and resets it, alternated "recvAddress(..)
 * failed with error(-104)" and "Connection closed prematurely", and each attempt logged a WARN); once it was followed
 * again, a refusal is logged again.
 */
class FollowedSentinelsTest {

	@Test
	void alternatingRefusalsAreLoggedOnceEachUntilTheSentinelIsFollowedAgain() {
		FollowedSentinels followed = new FollowedSentinels();
		String sentinel = "127.0.0.1:26399";
		followed.asking(sentinel);
		RedisConnectionException reset = new RedisConnectionException(
				"recvAddress(..) failed with error(-104): Connection reset by peer");
		RedisConnectionException closed = new RedisConnectionException("Connection closed prematurely");
		int mark = CapturedLogs.all().size();

		for (int attempt = 0; attempt < 5; attempt++) {
			followed.refused(sentinel, attempt % 2 == 0 ? reset : closed);
		}
		assertThat(refusals(mark)).as("each reason once").isEqualTo(2);
		assertThat(followed.summary()).as("the health has the latest reason")
			.startsWith("0 of 1 followed: none")
			.contains("Connection reset by peer");

		followed.followed(sentinel);
		followed.refused(sentinel, closed);
		assertThat(refusals(mark)).as("once more after it was followed again").isEqualTo(3);
	}

	/**
	 * Review 45g G-1: a subscription lost within a minute of each re-subscription logged "was lost" (and "follows
	 * again") every ~5 s for ever. Now only the first loss is logged; the repeats are counted in the health and in the
	 * next loss logged, after a subscription that lasted.
	 */
	@Test
	void lossesSoonAfterEachSubscriptionAreLoggedOnceAndCounted() {
		long[] now = { 0 };
		FollowedSentinels followed = new FollowedSentinels(() -> now[0]);
		String sentinel = "127.0.0.1:26398";
		followed.asking(sentinel);
		followed.followed(sentinel);
		int mark = CapturedLogs.all().size();
		for (int flap = 0; flap < 12; flap++) {
			now[0] += Duration.ofSeconds(4).toNanos();
			followed.lost(sentinel, "it answered no PING within 2000 ms");
			now[0] += Duration.ofSeconds(1).toNanos();
			followed.followed(sentinel);
		}
		assertThat(lines(mark, "WARN ", "was lost")).as("the first loss only").isEqualTo(1);
		assertThat(lines(mark, "INFO ", "follows Sentinel " + sentinel + " again")).as("after the first loss only")
			.isEqualTo(1);
		followed.lost(sentinel, "it answered no PING within 2000 ms");
		assertThat(followed.summary()).contains("12 times in a row within a minute of subscribing again");

		followed.followed(sentinel);
		now[0] += Duration.ofSeconds(60).toNanos();
		followed.lost(sentinel, "its connection was closed");
		assertThat(CapturedLogs.since(mark).stream().filter(line -> line.startsWith("WARN ") && line.contains("was lost")))
			.as("a loss after a subscription that lasted is logged, with the count of those not logged")
			.hasSize(2)
			.last()
			.asString()
			.contains("its connection was closed")
			.contains("it was lost 12 more times");
	}

	/**
	 * Review 45h H-1: a relay whose every Sentinel subscription was lost within a minute of a logged loss said nothing
	 * (each loss was one not logged), though it saw no failover. Now following none is logged when it begins, at most
	 * once a minute, and its end with it.
	 */
	@Test
	void followingNoSentinelIsLoggedOnceAMinute() {
		long[] now = { 0 };
		FollowedSentinels followed = new FollowedSentinels(() -> now[0]);
		List<String> sentinels = List.of("127.0.0.1:26396", "127.0.0.1:26397");
		sentinels.forEach(followed::asking);
		sentinels.forEach(followed::followed);
		int mark = CapturedLogs.all().size();
		for (int flap = 0; flap < 5; flap++) {
			now[0] += Duration.ofSeconds(2).toNanos();
			sentinels.forEach(sentinel -> followed.lost(sentinel, "its connection was closed"));
			now[0] += Duration.ofSeconds(2).toNanos();
			sentinels.forEach(followed::followed);
		}
		assertThat(lines(mark, "WARN ", "follows no Sentinel now")).as("once within the minute").isEqualTo(1);
		assertThat(lines(mark, "INFO ", "after following none")).isEqualTo(1);
		now[0] += Duration.ofSeconds(61).toNanos();
		sentinels.forEach(sentinel -> followed.lost(sentinel, "its connection was closed"));
		assertThat(lines(mark, "WARN ", "follows no Sentinel now")).as("again a minute later").isEqualTo(2);
		assertThat(followed.summary()).startsWith("0 of 2 followed: none");
	}

	private static long lines(int mark, String level, String text) {
		return CapturedLogs.since(mark).stream().filter(line -> line.startsWith(level) && line.contains(text)).count();
	}

	private static long refusals(int mark) {
		return CapturedLogs.since(mark).stream()
			.filter(line -> line.startsWith("WARN ") && line.contains("refused the relay's subscription"))
			.count();
	}

}
