package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SseReader;
import dev.mcprelay.testsupport.StreamCuttingProxy;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * Virtual servers with software we did not write: the reference server (Streamable HTTP, and in its legacy
 * {@code sse} mode) and the Java SDK's server are members, and the TypeScript SDK's client drives the composition:
 * initialize, the merged list, a call per member, the reference server's sampling request answered by the client,
 * the warning about a member that is down, tool search across members, and the session's end. A virtual server of the
 * reference server alone, without a prefix, gives the direct suite's transcript; a dropped GET stream resumes the
 * reference server's events where it stopped, for a raw client and for the TypeScript client (which reopens it with
 * {@code Last-Event-ID} by itself).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualServerInteropTest {

	private static NodePeers.NodeServer everything;

	private static NodePeers.NodeServer everythingSse;

	private static NodePeers.NodeServer resumable;

	@LocalServerPort
	int port;

	@BeforeAll
	static void startServers() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		everything = NodePeers.startReferenceServer();
		everythingSse = NodePeers.startServer("everything-sse-on-loopback.mjs");
		resumable = NodePeers.startServer("resumable-server.mjs");
	}

	@AfterAll
	static void stopServers() throws Exception {
		if (everything != null) {
			everything.close();
		}
		if (everythingSse != null) {
			everythingSse.close();
		}
		if (resumable != null) {
			resumable.close();
		}
	}

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.everything.url", () -> everything.url());
		registry.add("mcp-relay.servers.legacy.url", () -> "http://127.0.0.1:" + everythingSse.port() + "/sse");
		registry.add("mcp-relay.servers.legacy.transport", () -> "sse");
		registry.add("mcp-relay.servers.sdk.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.gone.url", () -> "http://127.0.0.1:" + TestUpstreams.REFUSED_PORT + "/mcp");
		registry.add("mcp-relay.servers.gone.timeouts.non-streaming", () -> "2s");
		registry.add("mcp-relay.virtual-servers.hub.members", () -> "everything,legacy,sdk,gone");
		registry.add("mcp-relay.virtual-servers.mirror.members", () -> "everything");
		registry.add("mcp-relay.virtual-servers.mirror.tool-prefix", () -> "");
		registry.add("mcp-relay.servers.resumable.url", () -> resumable.url());
		registry.add("mcp-relay.virtual-servers.ticker.members", () -> "resumable,sdk");
		registry.add("mcp-relay.virtual-servers.ticker.prefix.resumable", () -> "");
		registry.add("mcp-relay.virtual-servers.find.members", () -> "everything,sdk");
		registry.add("mcp-relay.virtual-servers.find.tool-prefix", () -> "");
		registry.add("mcp-relay.virtual-servers.find.tool-search.enabled", () -> "true");
	}

	@Test
	void theTypeScriptClientUsesThreeMembersThroughOneEndpoint() throws Exception {
		JsonNode transcript = new ObjectMapper().readTree(NodePeers.runClient("virtual-scenario.mjs", relay("hub"),
				"everything_echo", "legacy_echo", "sdk_echo"));

		assertThat(transcript.at("/initialize/serverName").asText()).isEqualTo("hub");
		assertThat(transcript.at("/initialize/sessionIdIssued").asBoolean()).isTrue();
		assertThat(transcript.at("/initialize/capabilities").toString()).contains("tools", "prompts", "resources");
		assertThat(transcript.at("/initialize/instructions").asText()).contains("## everything");
		assertThat(transcript.at("/tools").toString()).contains("\"everything_echo\"", "\"legacy_echo\"",
				"\"sdk_echo\"", "\"everything_trigger-sampling-request\"").doesNotContain("\"gone_");
		assertThat(transcript.at("/warnings").toString()).contains("'gone'");
		assertThat(transcript.at("/echo/everything_echo").asText()).contains("to everything_echo");
		assertThat(transcript.at("/echo/legacy_echo").asText()).contains("to legacy_echo");
		assertThat(transcript.at("/echo/sdk_echo").asText()).isEqualTo("to sdk_echo");
		assertThat(transcript.at("/sampling/asked").asInt()).as("the member's request reached the client").isEqualTo(1);
		assertThat(transcript.at("/sampling/result").asText()).contains("the client's answer");
		assertThat(transcript.at("/unknownTool").toString()).contains("-32602");
		assertThat(transcript.at("/sessionTerminated").asBoolean()).isTrue();
		assertThat(transcript.at("/afterTermination").asText()).as("no session any more: as the reference server itself says")
			.contains("400");
	}

	@Test
	void aVirtualServerOfOneMemberWithoutAPrefixGivesTheDirectTranscript() throws Exception {
		ObjectMapper json = new ObjectMapper();

		JsonNode direct = json.readTree(NodePeers.runScenarios(relay("everything")));
		ObjectNode mirrored = (ObjectNode) json.readTree(NodePeers.runScenarios(relay("mirror")));

		assertThat(mirrored.at("/initialize/serverName").asText()).isEqualTo("mirror");
		((ObjectNode) mirrored.get("initialize")).set("serverName", direct.at("/initialize/serverName"));
		assertThat(mirrored).as("everything but serverInfo is the member's").isEqualTo(direct);
	}

	@Test
	void toolSearchFindsToolsAcrossMembers() throws Exception {
		JsonNode transcript = new ObjectMapper().readTree(NodePeers.runClient("tool-search-scenario.mjs", relay("find")));

		assertThat(transcript.at("/before").toString()).isEqualTo("[\"search_available_tools\"]");
		assertThat(transcript.at("/order").toString()).isEqualTo("[\"tools/list_changed\",\"result\"]");
		assertThat(transcript.at("/found").toString()).contains("\"get-sum\"");
		assertThat(transcript.at("/after").toString()).contains("\"get-sum\"");
		assertThat(transcript.at("/sum/content/0/text").asText()).contains("42");
		assertThat(transcript.at("/notFound").toString()).contains("-32602");
	}

	@Test
	void aDroppedStreamResumesTheMembersEventsWhereItStopped() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "mirror");
		session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"debug\"}}");
		session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
				+ "\"toggle-simulated-logging\",\"arguments\":{}}}");

		List<SseReader.Event> first = events(http, session, null, 2);
		String lastId = first.get(first.size() - 1).id();
		assertThat(lastId).as("the merged stream's events carry ids").isNotBlank();
		// The reference server logs every few seconds: long enough away, the stream misses at least one event.
		Thread.sleep(7000);
		List<SseReader.Event> resumed = events(http, session, lastId, 1);

		// Every event of the member has an id of its own (the server's log texts repeat, the ids do not).
		assertThat(first).extracting(SseReader.Event::id).as("resumed after the last event, not from the start")
			.doesNotContain(resumed.get(0).id());
		session.post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
				+ "\"toggle-simulated-logging\",\"arguments\":{}}}");
	}

	@Test
	void theTypeScriptClientResumesADroppedStreamWhereItStopped() throws Exception {
		try (StreamCuttingProxy proxy = new StreamCuttingProxy(port, 3)) {
			JsonNode outcome = new ObjectMapper().readTree(NodePeers.runClient("resume-scenario.mjs",
					"http://127.0.0.1:" + proxy.port() + "/mcp/ticker", "8"));

			assertThat(proxy.cut()).as("the client's GET stream was dropped after three events").isTrue();
			assertThat(outcome.get("disconnects").asInt()).as("%s", outcome).isPositive();
			assertThat(outcome.get("received").asInt()).as("log messages after the drop too: %s", outcome)
				.isGreaterThanOrEqualTo(8);
			List<String> ticks = new java.util.ArrayList<>();
			outcome.get("data").forEach(data -> ticks.add(data.asText()));
			assertThat(ticks).as("every tick once, in order, none lost in the gap: %s", outcome)
				.isEqualTo(java.util.stream.IntStream.rangeClosed(1, ticks.size()).mapToObj(n -> "tick " + n).toList());
			assertThat(proxy.getHeads()).as("the client reopened its stream from where it stopped")
				.hasSizeGreaterThanOrEqualTo(2)
				.last()
				.satisfies(head -> assertThat(head.toLowerCase()).contains("last-event-id:"));
		}
	}

	/**
	 * A long call whose stream the client dropped, resumed by a GET with the last event id the call's stream gave, on
	 * the one relay, which holds the session's member streams since the join (issue 45, cold review item 1): the GET
	 * gets the progress the client missed and the call's result, each once, and the member's server stream goes on
	 * after it. Before, the session's streams were held since the join and the client's position for the call's stream
	 * was never used: 200 and nothing, for ever. Both ways the session may be held: since the join (no GET yet), and
	 * held again after a GET the client had open during the call dropped with it.
	 */
	@ParameterizedTest(name = "a GET open during the call: {0}")
	@ValueSource(booleans = { false, true })
	void aLongCallWhoseStreamDroppedGetsItsMissedProgressAndItsResultOnTheReplicaHoldingTheSession(boolean getOpen)
			throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "ticker");
		HttpResponse<InputStream> earlier = getOpen ? http.open(stream(http, session, null)) : null;
		HttpResponse<InputStream> call = http.open(session.request("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"count-slowly\",\"arguments\":{\"steps\":10},"
				+ "\"_meta\":{\"progressToken\":\"count\"}}}"));
		assertThat(call.statusCode()).isEqualTo(200);
		// the client's connection drops after three events of the call's stream (and its GET, if it had one, with it)
		List<SseReader.Event> before = SseReader.read(call.body(), 3, Duration.ofSeconds(30));
		if (earlier != null) {
			earlier.body().close();
		}
		String lastId = before.get(2).id();
		assertThat(lastId).as("the call's events carry ids").isNotBlank();

		HttpResponse<InputStream> resumed = http.open(stream(http, session, lastId));
		assertThat(resumed.statusCode()).isEqualTo(200);
		List<SseReader.Event> after = SseReader.read(resumed.body(), 8, Duration.ofSeconds(30));

		List<Integer> progress = new ArrayList<>();
		Stream.concat(before.stream(), after.stream())
			.filter(event -> event.data().path("method").asText().equals("notifications/progress"))
			.forEach(event -> progress.add(event.data().at("/params/progress").asInt()));
		assertThat(progress).as("every step once, the missed ones on the GET")
			.isEqualTo(IntStream.rangeClosed(1, 10).boxed().toList());
		SseReader.Event result = after.get(after.size() - 1);
		assertThat(result.data().path("id").asInt()).as("%s", after).isEqualTo(7);
		assertThat(result.data().at("/result/content/0/text").asText()).isEqualTo("counted 10");

		// the member's server stream goes on after the call's: its log messages come on the session's next GET
		session.post("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":"
				+ "\"toggle-simulated-logging\",\"arguments\":{}}}");
		try {
			HttpResponse<InputStream> next = http.open(stream(http, session, result.id()));
			assertThat(next.statusCode()).isEqualTo(200);
			assertThat(SseReader.read(next.body(), 2, Duration.ofSeconds(30)))
				.allSatisfy(event -> assertThat(event.data().path("method").asText()).isEqualTo("notifications/message"));
		}
		finally {
			session.post("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
					+ "\"toggle-simulated-logging\",\"arguments\":{}}}");
		}
	}

	/** A GET of {@code session}'s stream, resuming after {@code lastEventId} (none: {@code null}). */
	private static HttpRequest.Builder stream(RawHttp http, McpSession session, String lastEventId) {
		var request = http.request("ticker").header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION);
		return lastEventId == null ? request.GET() : request.header("Last-Event-ID", lastEventId).GET();
	}

	/** Reads {@code count} message events from a GET stream of the session, then drops it. */
	private static List<SseReader.Event> events(RawHttp http, McpSession session, String lastEventId, int count)
			throws Exception {
		var request = http.request("mirror").header("Accept", "text/event-stream").header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION);
		if (lastEventId != null) {
			request.header("Last-Event-ID", lastEventId);
		}
		HttpResponse<InputStream> stream = http.open(request.GET());
		assertThat(stream.statusCode()).isEqualTo(200);
		return SseReader.read(stream.body(), count, Duration.ofSeconds(30));
	}

	private String relay(String server) {
		return "http://127.0.0.1:" + port + "/mcp/" + server;
	}

}
