package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SseReader;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Two replicas sharing a virtual server's sessions (Redis), and a client whose GET stream lands on another replica
 * than the one its session began on (no affinity, issue 45 cold review item 2): the replica that took the GET claims
 * the session's member streams over Redis, the one that held them since the join (and served the client's earlier GET)
 * lets them go, and what the member sends on its stream reaches the client's GET on the second replica: its log
 * messages, and its request to the client (sampling), which the client answers. Before, the member (a TypeScript SDK
 * server: one standalone GET per session) refused the second replica's GET with 409 for as long as the first held
 * its stream, and the client's GET there was silent. The client's earlier GET, on the first replica, ends, as a GET
 * another took the place of ends on one replica.
 */
class VirtualServerReplicasInteropTest {

	private static NodePeers.NodeServer member;

	private static NodePeers.NodeServer resumable;

	private static TwoRelaysOverRedis relays;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		member = NodePeers.startServer("member-server.mjs");
		resumable = NodePeers.startServer("resumable-server.mjs");
		relays = TwoRelaysOverRedis.start("--mcp-relay.servers.one.url=" + member.url(),
				"--mcp-relay.virtual-servers.solo.members=one",
				"--mcp-relay.servers.counting.url=" + resumable.url(),
				"--mcp-relay.virtual-servers.counter.members=counting",
				// the ids of a member's requests are signed: the replicas answer each other's
				"--mcp-relay.sessions.secret=replicas-shared-secret-0123456789abcdefghij");
	}

	@AfterAll
	static void stop() throws Exception {
		if (relays != null) {
			relays.close();
		}
		if (member != null) {
			member.close();
		}
		if (resumable != null) {
			resumable.close();
		}
	}

	/**
	 * A long call on the first replica whose stream the client dropped, resumed by a GET with the call's last event id
	 * on the second (issue 45, cold review item 1, on another replica): the progress the client missed, then the result.
	 */
	@Test
	void aLongCallWhoseStreamDroppedIsResumedOnTheOtherReplica() throws Exception {
		RawHttp onFirst = new RawHttp(TwoRelaysOverRedis.port(relays.first()));
		RawHttp onSecond = new RawHttp(TwoRelaysOverRedis.port(relays.second()));
		await().atMost(Duration.ofSeconds(30)).until(() -> subscribers() >= 2);
		McpSession session = McpSession.open(onFirst, "counter");
		HttpResponse<InputStream> call = onFirst.open(session.request("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"counting_count-slowly\",\"arguments\":{\"steps\":10},"
				+ "\"_meta\":{\"progressToken\":\"count\"}}}"));
		List<SseReader.Event> before = SseReader.read(call.body(), 3, Duration.ofSeconds(30));

		HttpResponse<InputStream> resumed = onSecond.open(onSecond.request("counter")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.header("Last-Event-ID", before.get(2).id())
			.GET());
		assertThat(resumed.statusCode()).isEqualTo(200);
		List<SseReader.Event> after = SseReader.read(resumed.body(), 8, Duration.ofSeconds(30));

		List<Integer> progress = Stream.concat(before.stream(), after.stream())
			.filter(event -> event.data().path("method").asText().equals("notifications/progress"))
			.map(event -> event.data().at("/params/progress").asInt())
			.toList();
		assertThat(progress).as("every step once").isEqualTo(IntStream.rangeClosed(1, 10).boxed().toList());
		assertThat(after.get(7).data().at("/result/content/0/text").asText()).isEqualTo("counted 10");
	}

	@Test
	void aGetOnAnotherReplicaTakesTheMembersStreamsOverAndGetsWhatTheyAsk() throws Exception {
		RawHttp onFirst = new RawHttp(TwoRelaysOverRedis.port(relays.first()));
		RawHttp onSecond = new RawHttp(TwoRelaysOverRedis.port(relays.second()));
		// both replicas hear claims: each subscribed to the channel
		await().atMost(Duration.ofSeconds(30)).until(() -> subscribers() >= 2);
		McpSession session = McpSession.open(onFirst, "solo", "{\"sampling\":{}}");
		SessionGetStream earlier = new SessionGetStream(onFirst, "solo", session);
		assertThat(earlier.status()).isEqualTo(200);

		SessionGetStream moved = new SessionGetStream(onSecond, "solo", session);
		assertThat(moved.status()).isEqualTo(200);
		session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"one_tick\","
				+ "\"arguments\":{\"label\":\"moved\",\"perTick\":1,\"intervalMs\":100,\"total\":600}}}");
		try {
			JsonNode tick = moved.next(message -> message.path("method").asText().equals("notifications/message"));
			assertThat(tick.at("/params/data").asText()).startsWith("moved ");
			earlier.awaitEnd();

			CompletableFuture<HttpResponse<String>> call = CompletableFuture
				.supplyAsync(() -> session.post(RawHttp.toolsCall(2, "one_ask-model")));
			JsonNode asked = moved.next(message -> message.path("method").asText().equals("sampling/createMessage"));
			HttpResponse<String> answered = session.post("{\"jsonrpc\":\"2.0\",\"id\":" + asked.get("id")
					+ ",\"result\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"hello\"},"
					+ "\"model\":\"test\"}}");
			assertThat(answered.statusCode()).isEqualTo(202);
			assertThat(call.get(30, TimeUnit.SECONDS).body()).contains("model said: hello");
		}
		finally {
			moved.close();
			earlier.close();
		}
	}

	/** How many connections listen on the replicas' channel. */
	private static int subscribers() throws Exception {
		Process cli = new ProcessBuilder("redis-cli", "-p", String.valueOf(relays.redis().port()), "PUBSUB", "NUMSUB",
				"mcp-relay:virtual-streams").redirectErrorStream(true).start();
		List<String> lines = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
		cli.waitFor();
		return lines.size() < 2 ? 0 : Integer.parseInt(lines.get(1).strip());
	}

}
