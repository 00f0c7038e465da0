package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RedisSentinelProcesses;
import dev.mcprelay.testsupport.RedisWire;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * A virtual session's member streams follow the client's GET to the other replica right after a graceful Sentinel
 * failover ({@code SENTINEL FAILOVER}): the replicas' subscription to the handover channel moves to the new master
 * with the rest of their store connections. Before, it stayed on the old master, which a graceful failover leaves
 * running as a master until the Sentinels demote it (8 s or more after the switch): a claim, published on the new
 * master, reached no replica, the holder kept the member's stream, and the client's GET on the other replica got
 * nothing. Two relays over a master, a replica and three Sentinels, a TypeScript SDK member (one standalone GET per
 * session); the handover is done, and checked, before the old master is demoted. In the longer tier
 * ({@code -Pscale}).
 */
@Tag("scale")
class VirtualStreamHandoverOverSentinelTest {

	/** The channel the replicas claim a virtual session's streams on. */
	private static final String CHANNEL = "mcp-relay:virtual-streams";

	private static NodePeers.NodeServer member;

	private static TwoRelaysOverRedis relays;

	private static RedisSentinelProcesses sentinel;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		member = NodePeers.startServer("member-server.mjs");
		sentinel = RedisSentinelProcesses.start();
		relays = TwoRelaysOverRedis.over(sentinel, "--mcp-relay.servers.one.url=" + member.url(),
				"--mcp-relay.virtual-servers.solo.members=one",
				// the ids of a member's requests are signed: the replicas answer each other's
				"--mcp-relay.sessions.secret=replicas-shared-secret-0123456789abcdefghij").awaitReady();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relays != null) {
			relays.close();
		}
		if (member != null) {
			member.close();
		}
	}

	@Test
	void aGetOnTheOtherReplicaTakesTheMembersStreamsOverRightAfterAGracefulFailover() throws Exception {
		int old = sentinel.masterPort();
		await().atMost(Duration.ofSeconds(30)).until(() -> subscribers(old) >= 2);
		int mark = CapturedLogs.all().size();

		long asked = System.nanoTime();
		sentinel.failover(2);
		int promoted = sentinel.awaitFailoverFrom(old);
		long named = System.nanoTime();
		// both replicas listen on the new master now, and their connections to the old one are closed
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> subscribers(promoted) >= 2 && subscribers(old) == 0);
		long moved = System.nanoTime();

		RawHttp onFirst = new RawHttp(TwoRelaysOverRedis.port(relays.first()));
		RawHttp onSecond = new RawHttp(TwoRelaysOverRedis.port(relays.second()));
		McpSession session = McpSession.open(onFirst, "solo");
		try (SessionGetStream earlier = new SessionGetStream(onFirst, "solo", session);
				SessionGetStream taken = new SessionGetStream(onSecond, "solo", session)) {
			assertThat(earlier.status()).isEqualTo(200);
			assertThat(taken.status()).isEqualTo(200);
			session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"one_tick\","
					+ "\"arguments\":{\"label\":\"after-failover\",\"perTick\":1,\"intervalMs\":100,\"total\":600}}}");
			JsonNode tick = taken.next(message -> message.path("method").asText().equals("notifications/message"));
			assertThat(tick.at("/params/data").asText()).startsWith("after-failover ");
			earlier.awaitEnd();
		}
		long handedOver = System.nanoTime();
		String role = RedisWire.field(RedisWire.text(old, "INFO", "replication"), "role");
		System.out.printf("handover after a graceful failover: new master named %d ms after SENTINEL FAILOVER, both "
				+ "replicas subscribed there %d ms after that, the member's stream on the claiming replica %d ms after "
				+ "that; the old master's role then: %s%n", millis(named - asked), millis(moved - named),
				millis(handedOver - moved), role);
		assertThat(role).as("the old master is not demoted yet: the handover did not wait for the demotion")
			.isEqualTo("master");

		List<String> logged = CapturedLogs.since(mark);
		assertThat(logged).as("the end of the hold says what became of the calls that waited")
			.anyMatch(line -> line.matches("(?s)INFO \\S+SentinelMasterSwitches The store is used again: .*\\(held \\d+ "
					+ "ms; .*(no call waited|waited: \\d+ go on now, \\d+ gave up first).*"));
		assertThat(logged).as("no store call was reported as Redis not answering").noneMatch(line -> line.contains(
				"no answer in time"));
	}

	/** How many connections to the Redis server at {@code port} listen on the handover channel. */
	private static long subscribers(int port) throws IOException {
		List<?> counts = (List<?>) RedisWire.call(port, "PUBSUB", "NUMSUB", CHANNEL);
		return (Long) counts.get(1);
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

}
