package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

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

	private static long refusals(int mark) {
		return CapturedLogs.since(mark).stream()
			.filter(line -> line.startsWith("WARN ") && line.contains("refused the relay's subscription"))
			.count();
	}

}
