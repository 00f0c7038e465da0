package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.BoundProperties;
import dev.mcprelay.testsupport.CapturedLogs;

/**
 * Review 45l L-3: any {@code -failover-abort-*} naming the master's name ended a real failover's hold, also a
 * misconfigured Sentinel's own aborted attempt on another address ({@code master mymaster 127.0.0.1 33401} while the
 * hold was for 33400): writes went to the old master before the switch, a session lost. Here the Sentinels' messages, as
 * they send them, reach the relay's reader: an abort about another address leaves the store held; one about the master
 * being failed over ends the hold.
 */
class FailoverAbortOfAnotherAddressTest {

	@Test
	void onlyAnAbortAboutTheMasterHeldForEndsTheHold() {
		SentinelMasterSwitches switches = new SentinelMasterSwitches(BoundProperties.of(Map.of("security.mode", "none")),
				null, event -> {
				}, new FollowedSentinels());
		SentinelFailoverMessages messages = new SentinelFailoverMessages(switches, "mymaster");
		int mark = CapturedLogs.all().size();
		messages.message(SentinelFailoverMessages.PROMOTING,
				"slave 127.0.0.1:6381 127.0.0.1 6381 @ mymaster 127.0.0.1 6380");
		assertThat(CapturedLogs.since(mark)).anyMatch(line -> line.contains("The Sentinels are promoting"));
		messages.message(SentinelFailoverMessages.ABORTED, "-failover-abort-no-good-slave",
				"master mymaster 127.0.0.1 6381");
		assertThat(CapturedLogs.since(mark)).as("an abort of another address (a misconfigured Sentinel's own attempt)")
			.noneMatch(line -> line.contains("The store is used again"));
		messages.message(SentinelFailoverMessages.ABORTED, "-failover-abort-no-good-slave",
				"master mymaster 127.0.0.1 6380");
		assertThat(CapturedLogs.since(mark)).filteredOn(line -> line.contains("The store is used again")
				&& line.contains("-failover-abort-no-good-slave")).hasSize(1);
	}

}
