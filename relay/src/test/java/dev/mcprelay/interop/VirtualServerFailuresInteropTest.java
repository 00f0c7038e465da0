package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A virtual server whose members fail as real servers do (TypeScript SDK servers, {@code interop/member-server.mjs}
 * and {@code interop/sampling-server.mjs}):
 * <ul>
 * <li>a member restarted on its port no longer knows its session: one answering 404 as the SDK does, one answering
 * 400 "No valid session ID provided" as the SDK's older examples do. It is initialized again with the client's own
 * {@code initialize}, the request retried, its stream reopened into the client's, the client told; concurrent
 * requests open one new session, not one each; the client loses no call but the one the member was working on when
 * it went down, which gets an error with its id; a client that opens its GET stream again
 * after its only member restarted is served that member's stream in its new session, never told 405 (which a client
 * takes for "this server has no stream", for good);</li>
 * <li>a member that was down when the client initialized, joined later, joins the client's open GET stream;</li>
 * <li>tool search asks a member that was down again at the next search, and says which member a search lacks;</li>
 * <li>{@code logging/setLevel} that some members refuse is answered with the others' result and a warning, and with
 * an error when all refuse;</li>
 * <li>a client that stops reading its GET stream is disconnected under the member's {@code timeouts.client-write}.</li>
 * </ul>
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualServerFailuresInteropTest {

	private static final int RESTARTING_PORT = TestUpstreams.freePort();

	private static final int EXAMPLES_PORT = TestUpstreams.freePort();

	private static final int LATE_PORT = TestUpstreams.freePort();

	private static final int SEARCHED_PORT = TestUpstreams.freePort();

	private static final int SOLO_PORT = TestUpstreams.freePort();

	private static final int POSTED_PORT = TestUpstreams.freePort();

	private static final Map<String, String> AS_THE_EXAMPLES = Map.of("UNKNOWN_SESSION", "400");

	private static NodePeers.NodeServer restarting;

	private static NodePeers.NodeServer examples;

	private static NodePeers.NodeServer late;

	private static NodePeers.NodeServer searched;

	private static NodePeers.NodeServer sampler;

	private static NodePeers.NodeServer steady;

	private static NodePeers.NodeServer solo;

	/** A member of a virtual server whose client only POSTs. */
	private static NodePeers.NodeServer posted;

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	@BeforeAll
	static void startServers() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		restarting = NodePeers.startServer("member-server.mjs", RESTARTING_PORT, Map.of());
		examples = NodePeers.startServer("member-server.mjs", EXAMPLES_PORT, AS_THE_EXAMPLES);
		sampler = NodePeers.startServer("sampling-server.mjs");
		steady = NodePeers.startServer("member-server.mjs");
		solo = NodePeers.startServer("member-server.mjs", SOLO_PORT, Map.of());
		posted = NodePeers.startServer("member-server.mjs", POSTED_PORT, Map.of());
	}

	@AfterAll
	static void stopServers() throws Exception {
		for (NodePeers.NodeServer server : new NodePeers.NodeServer[] { posted, restarting, examples, late, searched, sampler,
				steady, solo }) {
			if (server != null) {
				server.close();
			}
		}
	}

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.restarting.url", () -> "http://127.0.0.1:" + RESTARTING_PORT + "/mcp");
		registry.add("mcp-relay.servers.examples.url", () -> "http://127.0.0.1:" + EXAMPLES_PORT + "/mcp");
		registry.add("mcp-relay.servers.late.url", () -> "http://127.0.0.1:" + LATE_PORT + "/mcp");
		registry.add("mcp-relay.servers.late.timeouts.non-streaming", () -> "2s");
		registry.add("mcp-relay.servers.sampler.url", () -> sampler.url());
		registry.add("mcp-relay.servers.steady.url", () -> steady.url());
		registry.add("mcp-relay.servers.streamy.url", () -> steady.url());
		registry.add("mcp-relay.servers.streamy.timeouts.client-write", () -> "1s");
		registry.add("mcp-relay.virtual-servers.pair.members", () -> "restarting,examples,steady");
		registry.add("mcp-relay.virtual-servers.later.members", () -> "steady,late");
		registry.add("mcp-relay.virtual-servers.logs.members", () -> "steady,sampler");
		registry.add("mcp-relay.virtual-servers.nolog.members", () -> "sampler");
		registry.add("mcp-relay.virtual-servers.stream.members", () -> "streamy");
		registry.add("mcp-relay.servers.searched.url", () -> "http://127.0.0.1:" + SEARCHED_PORT + "/mcp");
		registry.add("mcp-relay.servers.searched.timeouts.non-streaming", () -> "2s");
		registry.add("mcp-relay.virtual-servers.find.members", () -> "steady,searched");
		registry.add("mcp-relay.virtual-servers.find.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.solo.url", () -> "http://127.0.0.1:" + SOLO_PORT + "/mcp");
		registry.add("mcp-relay.virtual-servers.alone.members", () -> "solo");
		registry.add("mcp-relay.servers.posted.url", () -> "http://127.0.0.1:" + POSTED_PORT + "/mcp");
		registry.add("mcp-relay.virtual-servers.postonly.members", () -> "posted,steady");
	}

	@Test
	void aMemberRestartedOnItsPortAnswering404IsJoinedAgainAndNoCallIsLost() throws Exception {
		restarting = aRestartedMemberIsJoinedAgain("restarting", restarting, RESTARTING_PORT, Map.of());
	}

	@Test
	void aMemberRestartedOnItsPortAnsweringTheExamples400IsJoinedAgainAndNoCallIsLost() throws Exception {
		examples = aRestartedMemberIsJoinedAgain("examples", examples, EXAMPLES_PORT, AS_THE_EXAMPLES);
	}

	private NodePeers.NodeServer aRestartedMemberIsJoinedAgain(String member, NodePeers.NodeServer server, int memberPort,
			Map<String, String> environment) throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "pair", "{\"sampling\":{}}");
		Stream stream = Stream.open(http, session, "pair");
		assertThat(text(session.post(echo(1, member + "_echo", "before")))).isEqualTo("before");
		// a call the member is working on when it goes down: waiting for the client's model
		CompletableFuture<HttpResponse<String>> inFlight = CompletableFuture
			.supplyAsync(() -> session.post(RawHttp.toolsCall(9, member + "_ask-model")));
		await().atMost(Duration.ofSeconds(20)).until(() -> !stream.requests().isEmpty());

		server.close();
		HttpResponse<String> lost = inFlight.get(30, java.util.concurrent.TimeUnit.SECONDS);
		assertThat(lost.statusCode()).as("the call in flight fails on its own: %s", lost.body()).isEqualTo(200);
		assertThat(last(lost).path("id").asInt()).as("an error for that call, with its id: %s", lost.body()).isEqualTo(9);
		assertThat(last(lost).has("error")).as(lost.body()).isTrue();
		NodePeers.NodeServer restarted = NodePeers.startServer("member-server.mjs", memberPort, environment);

		List<CompletableFuture<HttpResponse<String>>> lists = new ArrayList<>();
		for (int id = 10; id < 18; id++) {
			int listId = id;
			lists.add(CompletableFuture.supplyAsync(() -> session.post(
					"{\"jsonrpc\":\"2.0\",\"id\":" + listId + ",\"method\":\"tools/list\"}")));
		}
		for (CompletableFuture<HttpResponse<String>> list : lists) {
			HttpResponse<String> listed = list.get();
			assertThat(listed.statusCode()).as("never the member's 404 or 400: %s", listed.body()).isEqualTo(200);
			assertThat(last(listed).at("/result/tools").findValuesAsText("name")).as(listed.body())
				.contains(member + "_echo", "steady_echo");
		}
		assertThat(text(session.post(echo(2, member + "_echo", "after")))).as("the call after the restart").isEqualTo("after");
		assertThat(sessionsOpened(memberPort)).as("eight concurrent lists and a call opened one session, not one each")
			.isEqualTo(1);

		session.post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"" + member
				+ "_tick\",\"arguments\":{\"label\":\"" + member + "\",\"perTick\":1,\"intervalMs\":10,\"total\":3}}}");
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			assertThat(stream.data()).as("the restarted member's stream joined the client's")
				.contains(member + " 1", member + " 2", member + " 3");
			assertThat(stream.methods()).as("the client was told").contains("notifications/tools/list_changed");
			assertThat(stream.data()).anyMatch(data -> data.contains("'" + member + "'") && data.contains("joined again"));
		});
		stream.close();
		return restarted;
	}

	/**
	 * A client that only POSTs, its session a few seconds old (the relay holds the members' streams for its first GET
	 * for 10 s), is told of a member joined again before the answer of its next request, as later in its session: the
	 * warning and {@code list_changed} are never left waiting for a GET that will not come.
	 */
	@Test
	void aClientThatOnlyPostsIsToldOfAMemberJoinedAgainBeforeTheAnswerEarlyInItsSession() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "postonly");
		assertThat(text(session.post(echo(1, "posted_echo", "before")))).isEqualTo("before");
		posted.close();
		posted = NodePeers.startServer("member-server.mjs", POSTED_PORT, Map.of());

		HttpResponse<String> after = session.post(echo(2, "posted_echo", "after"));

		assertThat(text(after)).isEqualTo("after");
		List<JsonNode> messages = RawHttp.messagesOf(after);
		assertThat(messages).as("told before the answer: %s", after.body())
			.anyMatch(message -> message.at("/params/data").asText().contains("'posted'")
					&& message.at("/params/data").asText().contains("joined again"))
			.anyMatch(message -> message.path("method").asText().equals("notifications/tools/list_changed"));
	}

	/**
	 * A member joined again by a client's notification (answered 202, with no body to carry anything), while no GET
	 * is open: the warning and {@code list_changed} come with the answer of the next request to that member, as the
	 * documentation says, never dropped (cold review G, finding 3).
	 */
	@Test
	void aMemberJoinedAgainByANotificationIsToldWithTheNextAnswer() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "postonly");
		assertThat(text(session.post(echo(1, "posted_echo", "before")))).isEqualTo("before");
		posted.close();
		posted = NodePeers.startServer("member-server.mjs", POSTED_PORT, Map.of());

		HttpResponse<String> notified = session.post("{\"jsonrpc\":\"2.0\",\"method\":"
				+ "\"notifications/roots/list_changed\"}");
		assertThat(notified.statusCode()).as(notified.body()).isEqualTo(202);
		assertThat(sessionsOpened(POSTED_PORT)).as("the notification joined the member again").isEqualTo(1);
		HttpResponse<String> after = session.post(echo(2, "posted_echo", "after"));

		assertThat(text(after)).isEqualTo("after");
		List<JsonNode> messages = RawHttp.messagesOf(after);
		assertThat(messages).as("told before the answer: %s", after.body())
			.anyMatch(message -> message.at("/params/data").asText().contains("'posted'")
					&& message.at("/params/data").asText().contains("joined again"))
			.anyMatch(message -> message.path("method").asText().equals("notifications/tools/list_changed"));
		HttpResponse<String> later = session.post(echo(3, "posted_echo", "later"));
		assertThat(RawHttp.messagesOf(later)).as("told once: %s", later.body()).hasSize(1);
	}

	@Test
	void aGetStreamOpenedAgainAfterTheOnlyMemberRestartedIsServedAndCarriesTheMembersNewSession() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "alone");
		Stream.open(http, session, "alone").close();
		// the client's stream is gone, and with it the relay's stream of the member: nothing here sees the restart
		await().atMost(Duration.ofSeconds(20)).until(() -> stats(SOLO_PORT).path("streamsOpen").asInt() == 0);
		solo.close();
		solo = NodePeers.startServer("member-server.mjs", SOLO_PORT, Map.of());

		Stream stream = Stream.open(http, session, "alone");
		session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"solo_tick\","
				+ "\"arguments\":{\"label\":\"solo\",\"perTick\":1,\"intervalMs\":10,\"total\":2}}}");
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(stream.data())
			.as("the member's stream in its new session, on the client's").contains("solo 1", "solo 2"));
		assertThat(sessionsOpened(SOLO_PORT)).as("the stream and the call found the session lost together: one join")
			.isEqualTo(1);
		stream.close();
	}

	@Test
	void aMemberJoinedLateJoinsTheOpenStreamAndItsRequestReachesTheClient() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "later", "{\"sampling\":{}}");
		Stream stream = Stream.open(http, session, "later");
		late = NodePeers.startServer("member-server.mjs", LATE_PORT, Map.of());

		CompletableFuture<HttpResponse<String>> call = CompletableFuture
			.supplyAsync(() -> session.post(RawHttp.toolsCall(1, "late_ask-model")));
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(stream.requests())
			.as("the late member's sampling request, on the stream the client opened before it joined")
			.anyMatch(request -> request.path("method").asText().equals("sampling/createMessage")));
		JsonNode request = stream.requests().get(0);
		session.post("{\"jsonrpc\":\"2.0\",\"id\":" + request.get("id") + ",\"result\":{\"role\":\"assistant\","
				+ "\"model\":\"m\",\"content\":{\"type\":\"text\",\"text\":\"hello\"}}}");

		assertThat(text(call.get())).isEqualTo("model said: hello");
		stream.close();
	}

	@Test
	void toolSearchAsksAMemberThatWasDownAgainAndSaysItIsMissing() throws Exception {
		RawHttp http = new RawHttp(port);
		String search = "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
				+ "\"search_available_tools\",\"arguments\":{\"query\":\"echo\"}}}";

		List<JsonNode> without = RawHttp.messagesOf(McpSession.open(http, "find").post(search));
		assertThat(last(without).toString()).contains("steady_echo").doesNotContain("searched_echo");
		assertThat(without).as("the client is told which member the search lacks").anySatisfy(message -> assertThat(
				message.at("/params/data").asText()).contains("'searched'"));

		searched = NodePeers.startServer("member-server.mjs", SEARCHED_PORT, Map.of());
		List<JsonNode> with = RawHttp.messagesOf(McpSession.open(http, "find").post(search));
		assertThat(last(with).toString()).as("the member is asked again, not left out for minutes")
			.contains("searched_echo");
	}

	@Test
	void setLevelThatSomeMembersRefuseIsTheOthersResultWithAWarningAndAnErrorWhenAllRefuse() {
		RawHttp http = new RawHttp(port);
		String setLevel = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"debug\"}}";

		List<JsonNode> some = RawHttp.messagesOf(McpSession.open(http, "logs").post(setLevel));
		assertThat(last(some).has("result")).as("steady took it: %s", some).isTrue();
		assertThat(some).as("the member that refused is named").anySatisfy(message -> {
			assertThat(message.path("method").asText()).isEqualTo("notifications/message");
			assertThat(message.at("/params/data").asText()).contains("'sampler'");
		});

		List<JsonNode> none = RawHttp.messagesOf(McpSession.open(http, "nolog").post(setLevel));
		assertThat(last(none).path("id").asInt()).isEqualTo(7);
		assertThat(last(none).has("error")).as("no member took it: an error, never {}: %s", none).isTrue();
	}

	@Test
	void aClientThatStopsReadingItsStreamIsDisconnectedUnderTheMembersClientWriteBound() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "stream");
		double before = stalls("streamy");
		try (Socket socket = new Socket()) {
			socket.setReceiveBufferSize(16 * 1024);
			socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
			OutputStream out = socket.getOutputStream();
			out.write(("GET /mcp/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nMcp-Session-Id: "
					+ session.id() + "\r\nMCP-Protocol-Version: " + McpSession.PROTOCOL_VERSION + "\r\n\r\n")
				.getBytes(StandardCharsets.UTF_8));
			out.flush();
			session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"streamy_tick\","
					+ "\"arguments\":{\"label\":\"" + "x".repeat(4000) + "\",\"perTick\":20,\"intervalMs\":10,"
					+ "\"total\":5000}}}");
			// The client reads nothing until the relay gave up on it: waiting for the relay's own count.
			await().atMost(Duration.ofSeconds(60))
				.untilAsserted(() -> assertThat(stalls("streamy")).as("counted as a stalled client").isGreaterThan(before));
			socket.setSoTimeout(10_000);
			InputStream in = socket.getInputStream();
			byte[] buffer = new byte[64 * 1024];
			long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
			int read = 0;
			while (read >= 0 && System.nanoTime() < deadline) {
				try {
					read = in.read(buffer);
				}
				catch (java.net.SocketTimeoutException open) {
					break;
				}
				catch (java.net.SocketException reset) {
					read = -1;
				}
			}
			assertThat(read).as("the client's connection was closed, not left open").isEqualTo(-1);
		}
	}

	/**
	 * A client that opens no GET stream is no stalled client: the members' streams held for it fill up (20 MB, past
	 * what the session, the member's relay and the sockets hold, so that the member's relay waits on its reader longer
	 * than its 1 s {@code client-write}) and the session ends
	 * when no GET came within 10 s, counting what was held; nothing is counted as a stall, and the member's stream is
	 * not cut as for one.
	 */
	@Test
	void aClientThatOpensNoStreamIsNoStalledClient() {
		RawHttp http = new RawHttp(port);
		double before = stalls("streamy");
		double unsent = undelivered("stream", "streamy", "no_client_stream");
		McpSession session = McpSession.open(http, "stream");

		session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"streamy_tick\","
				+ "\"arguments\":{\"label\":\"" + "y".repeat(4000) + "\",\"perTick\":20,\"intervalMs\":10,"
				+ "\"total\":5000}}}");
		await().atMost(Duration.ofSeconds(60))
			.untilAsserted(() -> assertThat(undelivered("stream", "streamy", "no_client_stream"))
				.as("the session ended for want of a GET, what it held counted").isGreaterThan(unsent));

		assertThat(stalls("streamy")).as("no client stream, no stalled client").isEqualTo(before);
	}

	private double undelivered(String virtualServer, String member, String reason) {
		return registry.find(RelayMeters.VIRTUAL_UNDELIVERED)
			.tag(RelayMeters.VIRTUAL_SERVER, virtualServer)
			.tag(RelayMeters.SERVER, member)
			.tag(RelayMeters.REASON, reason)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	private double stalls(String server) {
		Counter counter = registry.find(RelayMeters.CLIENT_STALLS).tag(RelayMeters.SERVER, server).counter();
		return counter == null ? 0 : counter.count();
	}

	private static String echo(int id, String tool, String message) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
				+ "\",\"arguments\":{\"message\":\"" + message + "\"}}}";
	}

	private static String text(HttpResponse<String> response) {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return last(response).at("/result/content/0/text").asText();
	}

	private static JsonNode last(HttpResponse<String> response) {
		return last(RawHttp.messagesOf(response));
	}

	private static JsonNode last(List<JsonNode> messages) {
		assertThat(messages).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

	/** How many sessions the member on {@code memberPort} opened since it started. */
	private static int sessionsOpened(int memberPort) throws Exception {
		return stats(memberPort).path("sessionsOpened").asInt();
	}

	private static JsonNode stats(int memberPort) throws Exception {
		return NodePeers.memberStats(memberPort);
	}

	/** The session's GET stream, read in the background: every message, as it comes. */
	private static final class Stream implements AutoCloseable {

		private final List<JsonNode> messages = new CopyOnWriteArrayList<>();

		private final InputStream body;

		private Stream(InputStream body) {
			this.body = body;
			Thread reader = new Thread(this::read, "get-stream-reader");
			reader.setDaemon(true);
			reader.start();
		}

		static Stream open(RawHttp http, McpSession session, String server) {
			HttpResponse<InputStream> response = http.open(http.request(server).header("Accept", "text/event-stream")
				.header("Mcp-Session-Id", session.id())
				.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
				.GET());
			assertThat(response.statusCode()).isEqualTo(200);
			return new Stream(response.body());
		}

		private void read() {
			try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
				StringBuilder data = new StringBuilder();
				String line;
				while ((line = lines.readLine()) != null) {
					if (line.startsWith("data:")) {
						data.append(line.substring(5).strip());
					}
					else if (line.isEmpty() && !data.isEmpty()) {
						messages.add(RawHttp.json(data.toString()));
						data.setLength(0);
					}
				}
			}
			catch (Exception ex) {
				// the stream was closed
			}
		}

		List<String> data() {
			return messages.stream().map(message -> message.at("/params/data").asText("")).toList();
		}

		List<String> methods() {
			return messages.stream().map(message -> message.path("method").asText("")).toList();
		}

		List<JsonNode> requests() {
			return messages.stream().filter(message -> message.has("id") && message.has("method")).toList();
		}

		@Override
		public void close() throws Exception {
			body.close();
		}

	}

}
