package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Tag;

/**
 * {@link GracefulFailoverOverSentinelTest} with the first Sentinel of {@code nodes} hung (SIGSTOP: it accepts
 * connections and answers nothing) from just before the failover: the one a new connection, and the relay's question
 * after {@code +switch-master}, ask first (review 45c, F2). With Lettuce's 60 s command timeout through Sentinel the
 * hold ended at its 10 s bound on the old master, sessions confirmed then were lost with its demotion, and the store
 * stayed unusable for a minute; the relay now leaves a Sentinel that does not answer within 2 s for the next one. Same
 * assertions (no session answered 200 is lost, every other answer is 503 {@code session_store_unavailable}), and: the
 * hung Sentinel was asked and left (a WARN names it), and on both relays the hold ended with the switch to the new
 * master, within {@link SentinelMasterSwitches#MAX_HOLD}, never at that bound (no call held is said to find Redis
 * silent; after the switch, each new connection's 2 s on the hung Sentinel may be). The test asks only Sentinels that
 * answer ({@code RedisSentinelProcesses} skips a frozen one). In the longer tier ({@code -Pscale}).
 */
@Tag("scale")
class GracefulFailoverPastAHungSentinelTest extends GracefulFailoverOverSentinelTest {

	private static final Pattern SWITCH_ENDED_HOLD = Pattern.compile("(?s)INFO \\S+SentinelMasterSwitches The store is "
			+ "used again: its connections go to the new master \\S+ \\(held (\\d+) ms.*");

	@Override
	void beforeFailover() throws Exception {
		sentinel.freezeSentinel(0);
	}

	/**
	 * Until the first hold ended (both relays held, no new connection yet): from a switch on, each new connection asks
	 * the hung Sentinel first too, and goes on to the next after 2 s (review 45c F2's mend), so a store call made then
	 * (not held) may find no answer within its 1 s, and is rightly said to.
	 */
	@Override
	List<String> heldCallsLog(List<String> logged) {
		for (int line = 0; line < logged.size(); line++) {
			if (logged.get(line).matches("(?s)INFO \\S+SentinelMasterSwitches The store is used again: .*")) {
				return logged.subList(0, line + 1);
			}
		}
		return logged;
	}

	@Override
	void afterFailover(List<String> logged) {
		String hung = "127.0.0.1:" + sentinel.sentinelPort(0);
		assertThat(logged).as("the hung Sentinel %s was asked first and left for the next", hung)
			.anyMatch(line -> line.startsWith("WARN ") && line.contains("Sentinel " + hung + " did not name the master")
					&& line.contains("no answer within 2000 ms: a stopped, overloaded or unreachable Sentinel"));
		List<Long> held = logged.stream().map(SWITCH_ENDED_HOLD::matcher).filter(Matcher::matches)
			.map(ended -> Long.parseLong(ended.group(1))).toList();
		System.out.printf("past a hung Sentinel: the holds the switch ended lasted %s ms%n", held);
		assertThat(held).as("each relay's hold ended with the switch to the new master").hasSizeGreaterThanOrEqualTo(2)
			.allMatch(millis -> millis < SentinelMasterSwitches.MAX_HOLD.toMillis());
		assertThat(logged).as("no hold ran out, no switch was left unfollowed")
			.noneMatch(line -> line.contains("named no new master within") || line.contains("within 10 s of its announcement"));
	}

}
