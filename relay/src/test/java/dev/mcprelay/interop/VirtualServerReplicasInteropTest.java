package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
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

	private static TwoRelaysOverRedis relays;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		member = NodePeers.startServer("member-server.mjs");
		relays = TwoRelaysOverRedis.start("--mcp-relay.servers.one.url=" + member.url(),
				"--mcp-relay.virtual-servers.solo.members=one",
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
	}

	@Test
	void aGetOnAnotherReplicaTakesTheMembersStreamsOverAndGetsWhatTheyAsk() throws Exception {
		RawHttp onFirst = new RawHttp(TwoRelaysOverRedis.port(relays.first()));
		RawHttp onSecond = new RawHttp(TwoRelaysOverRedis.port(relays.second()));
		// both replicas hear claims: each subscribed to the channel
		await().atMost(Duration.ofSeconds(30)).until(() -> subscribers() >= 2);
		McpSession session = McpSession.open(onFirst, "solo", "{\"sampling\":{}}");
		Events earlier = new Events(onFirst, session);
		assertThat(earlier.status()).isEqualTo(200);

		Events moved = new Events(onSecond, session);
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

	/** A GET stream of the session, its messages read as they come. */
	private static final class Events implements AutoCloseable {

		private final HttpResponse<InputStream> response;

		private final BlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();

		private final CountDownLatch ended = new CountDownLatch(1);

		Events(RawHttp http, McpSession session) {
			response = http.open(http.request("solo").header("Accept", "text/event-stream")
				.header("Mcp-Session-Id", session.id())
				.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
				.GET());
			Thread reader = new Thread(this::read, "replica-events");
			reader.setDaemon(true);
			reader.start();
		}

		int status() {
			return response.statusCode();
		}

		private void read() {
			try (BufferedReader lines = new BufferedReader(
					new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
				String line;
				while ((line = lines.readLine()) != null) {
					if (line.startsWith("data:") && line.length() > 5) {
						messages.add(RawHttp.json(line.substring(5).strip()));
					}
				}
			}
			catch (IOException dropped) {
				// closed by the test
			}
			finally {
				ended.countDown();
			}
		}

		/** The next message that {@code wanted}, within 30 s. */
		JsonNode next(Predicate<JsonNode> wanted) throws InterruptedException {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			while (true) {
				JsonNode message = messages.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
				assertThat(message).as("a message that the test waits for, within 30 s").isNotNull();
				if (wanted.test(message)) {
					return message;
				}
			}
		}

		/** Waits for the relay to end the stream. */
		void awaitEnd() throws InterruptedException {
			assertThat(ended.await(30, TimeUnit.SECONDS)).as("the stream ended").isTrue();
		}

		@Override
		public void close() throws IOException {
			response.body().close();
		}

	}

}
