package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RedisSentinelProcesses;
import dev.mcprelay.testsupport.RedisWire;
import dev.mcprelay.testsupport.SharedRedis;
import dev.mcprelay.testsupport.SilencingProxy;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * A graceful failover during which the relays lose their only followed Sentinel, between its announcement of the
 * promotion and its {@code +switch-master} (review 45e F-2): two relays follow the first Sentinel alone (the others
 * refuse them the channels, {@code NOPERM}), through a proxy that goes silent on each connection once it has carried
 * the promotion, for the connections opened after too (a partition: the relays can neither follow it again nor ask it).
 * The hold used to run its 10 s and release the calls onto the old master, whose demotion then threw away what they
 * wrote. Now, at the hold's 10 s, the relays ask the Sentinels (the silent one left after its 2 s), learn the master
 * they name is not the one the promotion was from, and move their connections there before the hold ends: no session
 * answered 200 is lost, each relay's hold ended with its connections going to the new master, and none ended at its
 * bound. In the longer tier ({@code -Pscale}).
 */
@Tag("scale")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SubscriptionLostInTheHoldTest {

	private static final String PASSWORD = "RelaySentinelPw-45g-hold";

	static final Pattern SWITCH_ENDED_HOLD = Pattern.compile("(?s)INFO \\S+SentinelMasterSwitches The store is used "
			+ "again: its connections go to the new master \\S+ \\(held (\\d+) ms.*");

	RedisSentinelProcesses sentinel;

	SilencingProxy proxy;

	TwoRelaysOverRedis relays;

	/** Whether the proxy also holds the connections opened once it went silent: here, yes (a partition). */
	boolean newConnectionsSilencedToo() {
		return true;
	}

	@BeforeAll
	void start() throws Exception {
		sentinel = RedisSentinelProcesses.start();
		sentinel.addSentinelUser("relay", PASSWORD, "~*", "+@all", "&*");
		for (int other : List.of(1, 2)) {
			RedisWire.call(sentinel.sentinelPort(other), "ACL", "SETUSER", "relay", "resetchannels");
		}
		// the promotion's message is the only one that names the master after an '@'
		proxy = new SilencingProxy(sentinel.sentinelPort(0), " @ " + RedisSentinelProcesses.MASTER + " ",
				newConnectionsSilencedToo());
		SharedRedis throughProxy = new SharedRedis() {

			@Override
			public String topology() {
				return sentinel.topology();
			}

			@Override
			public List<String> relayArguments() {
				return List.of("--spring.data.redis.sentinel.master=" + RedisSentinelProcesses.MASTER,
						"--spring.data.redis.sentinel.nodes=127.0.0.1:" + proxy.port() + ",127.0.0.1:"
								+ sentinel.sentinelPort(1) + ",127.0.0.1:" + sentinel.sentinelPort(2));
			}

			@Override
			public void close() throws Exception {
				proxy.close();
				sentinel.close();
			}

		};
		relays = TwoRelaysOverRedis.over(throughProxy, "--spring.data.redis.sentinel.username=relay",
				"--spring.data.redis.sentinel.password=" + PASSWORD,
				"--mcp-relay.servers.alpha.url=" + TestUpstreams.SDK.url("/stateless"),
				"--mcp-relay.virtual-servers.all.members=alpha").awaitReady();
	}

	@AfterAll
	void stop() throws Exception {
		if (relays != null) {
			relays.close();
		}
		else if (sentinel != null) {
			sentinel.close();
		}
	}

	@Test
	void aHoldWhoseSentinelWasLostCatchesUpWithTheSwitchBeforeItEnds() throws Exception {
		for (ConfigurableApplicationContext relay : List.of(relays.first(), relays.second())) {
			FollowedSentinels followed = relay.getBean(FollowedSentinels.class);
			Awaitility.await("the first Sentinel followed, the others refusing").atMost(Duration.ofSeconds(90))
				.until(() -> followed.count() == 1 && followed.summary().split("NOPERM", -1).length == 3);
		}
		FailoverTraffic traffic = FailoverTraffic.start(relays);
		traffic.awaitSessions(10);
		int mark = CapturedLogs.all().size();
		long asked = System.nanoTime();
		int old = sentinel.failover(0);
		sentinel.awaitFailoverFrom(old);
		sentinel.awaitDemoted(old);
		long demoted = System.nanoTime();
		traffic.awaitSessions(traffic.confirmedCount() + 10);
		traffic.stop();

		List<String> lost = traffic.lost();
		List<String> logged = CapturedLogs.since(mark);
		List<Long> held = logged.stream().map(SWITCH_ENDED_HOLD::matcher).filter(Matcher::matches)
			.map(ended -> Long.parseLong(ended.group(1))).toList();
		System.out.printf("subscription lost in the hold: %d sessions answered 200, %d of them lost (demotion %d ms "
				+ "after SENTINEL FAILOVER); the holds lasted %s ms; %d refused: %s%n", traffic.confirmed().size(),
				lost.size(), TimeUnit.NANOSECONDS.toMillis(demoted - asked), held, traffic.refused().size(),
				traffic.refused().stream().distinct().toList());
		assertThat(proxy.silenced()).as("the followed Sentinel went silent after announcing the promotion").isTrue();
		assertThat(logged).as("each relay held the store for the promotion")
			.filteredOn(line -> line.contains("The Sentinels are promoting a replica of")).hasSize(2);
		assertThat(logged).as("each relay caught up with the switch it did not see announced")
			.filteredOn(line -> line.startsWith("WARN ") && line.contains("though the relay saw no switch announced"))
			.hasSize(2);
		assertThat(held).as("each relay's hold ended with its connections going to the new master").hasSize(2);
		assertThat(logged).as("no hold ran out onto the old master")
			.noneMatch(line -> line.contains("named no new master within"));
		assertThat(lost).as("sessions answered 200 but gone after the failover, of %d", traffic.confirmed().size())
			.isEmpty();
		afterFailover(held);
	}

	/** What a variant checks further of the holds' lengths: nothing here (they end at 10 s and the questions after). */
	void afterFailover(List<Long> held) {
	}

}
