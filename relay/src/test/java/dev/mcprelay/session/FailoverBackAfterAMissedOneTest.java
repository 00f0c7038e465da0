package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RedisSentinelProcesses;
import dev.mcprelay.testsupport.RedisWire;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * A graceful failover back to a master the relays followed before, after a failover they did not follow (their
 * Sentinel subscriptions lost while it ran: the channels revoked; Lettuce moved the store's connections on the old
 * master's demotion), is held and followed like any other: the relays used to take its {@code +switch-master} for one
 * they had followed already (they remembered the master they had last moved to, from before the missed failover),
 * held the store the full 10 s, released it into the old master and lost the sessions it took until its demotion.
 * Here every session answered 200 during the failover back is on both relays after it, and each relay logs that the
 * Sentinels named the new master. In the longer tier ({@code -Pscale}): three failovers.
 */
@Tag("scale")
class FailoverBackAfterAMissedOneTest {

	private static final String PASSWORD = "RelaySentinelPw-45f";

	static RedisSentinelProcesses sentinel;

	static TwoRelaysOverRedis relays;

	@BeforeAll
	static void start() throws Exception {
		sentinel = RedisSentinelProcesses.start();
		sentinel.addSentinelUser("relay", PASSWORD, "~*", "+@all", "&*");
		relays = TwoRelaysOverRedis.over(sentinel, "--spring.data.redis.sentinel.username=relay",
				"--spring.data.redis.sentinel.password=" + PASSWORD,
				"--mcp-relay.servers.alpha.url=" + TestUpstreams.SDK.url("/stateless"),
				"--mcp-relay.virtual-servers.all.members=alpha").awaitReady();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relays != null) {
			relays.close();
		}
	}

	@Test
	void aFailoverBackAfterAMissedOneIsHeldAndFollowed() throws Exception {
		awaitSubscribed();
		int first = sentinel.failover(2);
		int second = sentinel.awaitFailoverFrom(first);
		sentinel.awaitDemoted(first);
		Awaitility.await("both relays followed the first failover").atMost(Duration.ofSeconds(30))
			.until(() -> CapturedLogs.all().stream().filter(line -> line.contains("The Sentinels named 127.0.0.1:" + second))
				.count() >= 2);

		// the relays lose their subscriptions (Redis disconnects them; Lettuce's re-subscription is refused)
		sentinel.addSentinelUser("relay", PASSWORD, "resetchannels");
		Awaitility.await("no relay subscribed").atMost(Duration.ofSeconds(30)).until(() -> subscribed() == 0);
		sentinel.failover(2);
		sentinel.awaitFailoverFrom(second);
		sentinel.awaitDemoted(second);
		sentinel.awaitReplicaInSync();

		sentinel.addSentinelUser("relay", PASSWORD, "&*");
		for (int index = 0; index < 3; index++) {
			RedisWire.call(sentinel.sentinelPort(index), "CLIENT", "KILL", "USER", "relay");
		}
		awaitSubscribed();

		FailoverTraffic traffic = FailoverTraffic.start(relays);
		traffic.awaitSessions(10);
		int mark = CapturedLogs.all().size();
		int back = sentinel.failover(2);
		sentinel.awaitFailoverFrom(back);
		sentinel.awaitDemoted(back);
		traffic.awaitSessions(traffic.confirmedCount() + 10);
		traffic.stop();

		List<String> confirmed = traffic.confirmed();
		List<String> refused = traffic.refused();
		List<String> lost = traffic.lost();
		List<String> logged = CapturedLogs.since(mark);
		System.out.printf("failover back after a missed one: %d sessions answered 200, %d lost, %d refused: %s; %s%n",
				confirmed.size(), lost.size(), refused.size(), refused.stream().distinct().toList(),
				logged.stream().filter(line -> line.contains("SentinelMasterSwitches")).toList());
		assertThat(logged).as("each relay followed the failover back to 127.0.0.1:%d", second)
			.filteredOn(line -> line.contains("The Sentinels named 127.0.0.1:" + second + " the master"))
			.hasSize(2);
		assertThat(lost).as("sessions answered 200 but gone after the failover back, of %d", confirmed.size()).isEmpty();
		assertThat(refused).as("initializes not answered 200").allMatch(answer -> answer.equals("503 session_store_unavailable"));
	}

	/** Waits until each Sentinel has both relays' subscriptions. */
	private static void awaitSubscribed() {
		Awaitility.await("both relays subscribed to every Sentinel").atMost(Duration.ofSeconds(90))
			.until(() -> subscribed() == 6);
	}

	/** The relays' connections that hold a pattern subscription, over the three Sentinels. */
	private static long subscribed() throws IOException {
		long count = 0;
		for (int index = 0; index < 3; index++) {
			count += RedisWire.text(sentinel.sentinelPort(index), "CLIENT", "LIST")
				.lines()
				.filter(line -> line.contains(" user=relay ") && line.contains(" psub=1 "))
				.count();
		}
		return count;
	}

}
