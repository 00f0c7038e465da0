package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * The version bridge, direction 2 (issue 46): the official TypeScript SDK v2 client pinned to MCP 2026-07-28
 * ({@code interop/bridge-client-v2.mjs}: server/discover, no session, the envelope in each request's {@code _meta})
 * reaches the MCP Java SDK's Streamable HTTP server ({@link SdkMcpUpstream}), which speaks only session-era MCP and
 * refuses it directly. Through the relay, whether the server's versions are learnt (server {@code learnt}: the
 * server's refusal of the first 2026 request makes the relay ask its own {@code server/discover}, refused, and its own
 * {@code initialize}, which teaches them) or
 * pinned (server {@code pinned}), it gets the same answers as the same client speaking session-era MCP directly: tools
 * listed and called, prompts, resources. The server sees one session per caller, opened by the relay with the client's
 * info, and no 2026 envelope; a session the server ended is opened again. The client's {@code subscriptions/listen}
 * is the session's GET stream ({@code interop/bridge-listen-client-v2.mjs}): acknowledged with what the server's
 * capabilities offer, it hears the server's tool list change.
 */
class SessionEraServerBridgeInteropTest {

	private static final ObjectMapper JSON = new ObjectMapper();

	private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
			+ "{\"name\":\"raw-2026\",\"version\":\"1\"},\"progressToken\":\"p1\"}";

	private static SdkMcpUpstream sdk;

	/** A session-era server of the TypeScript SDK 1.x ({@code interop/member-server.mjs}), which answers POSTs as event streams. */
	private static NodePeers.NodeServer streaming;

	private static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		sdk = new SdkMcpUpstream();
		streaming = NodePeers.startServer("member-server.mjs");
		relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.properties("server.port=0", "server.address=127.0.0.1",
					"mcp-relay.servers.learnt.url=" + sdk.url("/mcp"),
					"mcp-relay.servers.together.url=" + sdk.url("/mcp"),
					"mcp-relay.servers.pinned.url=" + sdk.url("/mcp"),
					"mcp-relay.servers.pinned.protocol-versions=2025-06-18",
					"mcp-relay.servers.raw.url=" + sdk.url("/mcp"),
					"mcp-relay.servers.raw.protocol-versions=2025-06-18",
					"mcp-relay.servers.streaming.url=" + streaming.url())
			.run();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (sdk != null) {
			sdk.close();
		}
		if (streaming != null) {
			streaming.close();
		}
	}

	@Test
	void aModernClientReachesASessionEraServerThroughTheBridgeWithTheSameAnswers() throws Exception {
		JsonNode refused = JSON.readTree(NodePeers.runClient("bridge-client-v2.mjs", sdk.url("/mcp"), "modern"));
		assertThat(refused.has("failed")).as("directly, the 2026 client cannot reach the server: %s", refused).isTrue();
		JsonNode direct = JSON.readTree(NodePeers.runClient("bridge-client-v2.mjs", sdk.url("/mcp"), "legacy"));
		assertThat(direct.path("failed").isMissingNode()).as("the same client in session-era MCP: %s", direct).isTrue();

		for (String id : List.of("learnt", "pinned")) {
			JsonNode bridged = JSON.readTree(NodePeers.runClient("bridge-client-v2.mjs", relayUrl(id), "modern"));
			assertThat(bridged.path("failed").isMissingNode()).as("%s: %s", id, bridged).isTrue();
			assertThat(bridged.path("protocolVersion").asText()).as("%s: the client's version", id)
				.isEqualTo("2026-07-28");
			assertThat(bridged.path("serverName").asText()).as("%s: the server's name, from its initialize", id)
				.isEqualTo("sdk-upstream");
			for (String answer : List.of("capabilities", "tools", "echoSchema", "echo", "unknownTool", "prompts",
					"greeting", "resources", "memo", "askModel", "sampled")) {
				assertThat(bridged.path(answer)).as("%s: %s, as the same-version pair has it", id, answer)
					.isEqualTo(direct.path(answer));
			}
			assertThat(bridged.path("echo").asText()).isEqualTo("héllo");
			assertThat(bridged.path("askModel").asText()).as("%s: the server's sampling request, answered by the "
					+ "client in an input_required round: %s", id, bridged).isEqualTo("model said: hello from the model");
		}
		assertThat(bridge("pinned").heldCalls()).as("no call left waiting").isZero();
	}

	@Test
	void theServerSeesOneSessionOpenedForTheClientAndNoEnvelope() throws Exception {
		RawHttp http = new RawHttp(port());
		sdk.clearSeen();
		for (int id = 1; id <= 2; id++) {
			HttpResponse<String> answer = http.send(modern(http, "{\"jsonrpc\":\"2.0\",\"id\":" + id
					+ ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"m" + id
					+ "\"}," + META + "}}", "tools/call", "echo"));
			JsonNode result = RawHttp.messagesOf(answer).get(0);
			assertThat(result.path("id").asInt()).as("the client's own id").isEqualTo(id);
			assertThat(result.at("/result/content/0/text").asText()).isEqualTo("m" + id);
			assertThat(result.at("/result/resultType").asText()).isEqualTo("complete");
			assertThat(answer.headers().firstValue("Mcp-Session-Id")).as("the server's session stays the relay's")
				.isEmpty();
		}
		HttpResponse<String> listed = http.send(modern(http, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\","
				+ "\"params\":{" + META + "}}", "tools/list", null));
		JsonNode list = RawHttp.messagesOf(listed).get(0).path("result");
		assertThat(list.path("ttlMs").asInt(-1)).as("never cached: the relay cannot know for how long").isZero();
		assertThat(list.path("cacheScope").asText()).as("a session of this caller's").isEqualTo("private");

		List<SdkMcpUpstream.Seen> posts = sdk.seen().stream().filter(seen -> seen.method().equals("POST")).toList();
		List<JsonNode> initializes = posts.stream().map(SdkMcpUpstream.Seen::json)
			.filter(message -> "initialize".equals(message.path("method").asText())).toList();
		assertThat(initializes).as("one session for the client").hasSize(1);
		assertThat(initializes.get(0).at("/params/clientInfo/name").asText()).as("the client's info, from its envelope")
			.isEqualTo("raw-2026");
		posts.stream().filter(seen -> "tools/call".equals(seen.json().path("method").asText())).forEach(seen -> {
			assertThat(seen.headers().getFirst("Mcp-Session-Id")).as("in the session").isNotNull();
			assertThat(seen.body()).as("no 2026 envelope").doesNotContain("io.modelcontextprotocol/");
			assertThat(seen.json().at("/params/_meta/progressToken").asText()).as("the rest of _meta kept")
				.isEqualTo("p1");
		});

		HttpResponse<String> discovered = http.send(modern(http, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
				+ "\"server/discover\",\"params\":{" + META + "}}", "server/discover", null));
		JsonNode discovery = RawHttp.messagesOf(discovered).get(0).path("result");
		assertThat(discovery.path("supportedVersions")).extracting(JsonNode::asText).containsExactly("2026-07-28");
		assertThat(discovery.at("/capabilities/tools").isObject()).as("the server's capabilities").isTrue();
		assertThat(discovery.at("/_meta/io.modelcontextprotocol~1serverInfo/name").asText()).isEqualTo("sdk-upstream");
	}

	@Test
	void aSessionTheServerEndedIsOpenedAgain() throws Exception {
		RawHttp http = new RawHttp(port());
		String call = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
				+ "\"arguments\":{\"message\":\"again\"}," + META.replace("raw-2026", "ended") + "}}";
		sdk.clearSeen();
		assertThat(RawHttp.messagesOf(http.send(modern(http, call, "tools/call", "echo"))).get(0)
			.at("/result/content/0/text").asText()).isEqualTo("again");
		String session = sdk.seen().stream().filter(seen -> seen.method().equals("POST"))
			.map(seen -> seen.headers().getFirst("Mcp-Session-Id")).filter(id -> id != null).findFirst().orElseThrow();
		java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
				java.net.URI.create(sdk.url("/mcp"))).header("Mcp-Session-Id", session).DELETE().build(),
				HttpResponse.BodyHandlers.discarding());

		JsonNode after = RawHttp.messagesOf(http.send(modern(http, call, "tools/call", "echo"))).get(0);
		assertThat(after.at("/result/content/0/text").asText()).as("answered in a new session: %s", after)
			.isEqualTo("again");
		assertThat(sdk.seen().stream().filter(seen -> "initialize".equals(seen.method().equals("POST")
				? seen.json().path("method").asText() : "")).count()).as("opened twice").isEqualTo(2);
	}

	@Test
	void aModernClientsListenIsTheSessionsStreamAndHearsItsListChanges() throws Exception {
		java.nio.file.Path acknowledged = java.nio.file.Files.createTempDirectory("bridge-listen").resolve("ack");
		int getsBefore = sdk.getsServed();
		java.util.concurrent.CompletableFuture<String> listened = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
			try {
				return NodePeers.runClient("bridge-listen-client-v2.mjs", relayUrl("pinned"), "20000",
						acknowledged.toString());
			}
			catch (java.io.IOException ex) {
				throw new java.io.UncheckedIOException(ex);
			}
		});
		long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
		while (!java.nio.file.Files.exists(acknowledged)) {
			assertThat(listened).as("the client is still waiting for its subscription").isNotDone();
			assertThat(System.nanoTime()).as("the subscription was acknowledged through the relay").isLessThan(deadline);
			Thread.sleep(20);
		}
		// the server drops a notification for a session whose stream is not open yet: wait until it holds the GET
		while (sdk.getsServed() == getsBefore) {
			assertThat(System.nanoTime()).as("the relay opened the session's GET stream").isLessThan(deadline);
			Thread.sleep(20);
		}
		sdk.addBulkTools(1, 20);

		JsonNode transcript = JSON.readTree(listened.get(30, java.util.concurrent.TimeUnit.SECONDS));
		assertThat(transcript.path("honoredFilter").path("toolsListChanged").asBoolean()).as("%s", transcript).isTrue();
		assertThat(transcript.path("honoredFilter").path("promptsListChanged").asBoolean()).as("%s", transcript)
			.isTrue();
		assertThat(transcript.path("outcome").asText()).as("the server's list change, on the subscription: %s",
				transcript).isEqualTo("changed");
		assertThat(transcript.path("tools")).extracting(JsonNode::asText).contains("bulk_0");
	}

	/**
	 * A session-era server that answers its {@code initialize} as an event stream (the TypeScript SDK 1.x server with
	 * JSON responses off, as {@code interop/member-server.mjs} runs it): the relay reads the session's {@code initialize}
	 * result from the stream's first answer ({@code UpstreamSessions}), learns the server's version from it and bridges
	 * the 2026 client's call.
	 */
	@Test
	void aSessionEraServerThatAnswersItsInitializeAsAnEventStreamIsBridged() throws Exception {
		HttpResponse<String> direct = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest
			.newBuilder(java.net.URI.create(streaming.url())).header("Content-Type", "application/json")
			.header("Accept", "application/json, text/event-stream")
			.POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
					+ "\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
					+ "\"clientInfo\":{\"name\":\"probe\",\"version\":\"1\"}}}"))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(direct.headers().firstValue("Content-Type").orElse("")).as("the premise: %s", direct.body())
			.startsWith("text/event-stream");

		RawHttp http = new RawHttp(port());
		HttpResponse<String> answer = http.send(modern(http, "streaming", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"streamed\"},"
				+ META.replace("raw-2026", "streamed-initialize") + "}}", "tools/call", "echo"));
		JsonNode result = RawHttp.messagesOf(answer).get(0);
		assertThat(result.at("/result/content/0/text").asText()).as("%s", result).isEqualTo("streamed");
		assertThat(result.at("/result/resultType").asText()).isEqualTo("complete");
		assertThat(bridge("streaming").versions().known()).as("learnt from the initialize answered as a stream")
			.isNotEmpty()
			.allMatch(version -> version.startsWith("2025-"));
	}

	/**
	 * Review 46j, N4: the first 2026 clients of a session-era server of unknown versions ({@code together}) arrive
	 * together; the server refuses each, and those refused after another one's refusal taught the relay that the
	 * server speaks only the session era got that refusal (6 of 40). Now each goes through the bridge: all 40 answered
	 * (each opening its own upstream session: 40 clients).
	 */
	@Test
	void theFirstModernClientsOfAServerOfUnknownVersionsArrivingTogetherAreAllBridged() throws Exception {
		RawHttp http = new RawHttp(port());
		java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(40);
		try {
			List<java.util.concurrent.Future<java.net.http.HttpResponse<String>>> answers = new java.util.ArrayList<>();
			for (int i = 0; i < 40; i++) {
				int id = i;
				answers.add(clients.submit(() -> http.send(modern(http, "together", "{\"jsonrpc\":\"2.0\",\"id\":" + id
						+ ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"m"
						+ id + "\"}," + META.replace("raw-2026", "together-" + id) + "}}", "tools/call", "echo")
					// the relay answers within its timeouts.non-streaming (60 s): the clients wait that long, not
					// RawHttp's 20 s (40 sessions opened at once on a machine shared by the build)
					.timeout(java.time.Duration.ofSeconds(60)))));
			}
			for (int i = 0; i < 40; i++) {
				java.net.http.HttpResponse<String> answer = answers.get(i).get();
				assertThat(answer.statusCode()).as("client %s: %s", i, answer.body()).isEqualTo(200);
				assertThat(RawHttp.messagesOf(answer).get(0).at("/result/content/0/text").asText()).isEqualTo("m" + i);
			}
		}
		finally {
			clients.shutdownNow();
		}
		assertThat(bridge("together").versions().bridges("2026-07-28")).isTrue();
	}

	@Test
	void aForgedRequestStateIsRefused() throws Exception {
		RawHttp http = new RawHttp(port());
		for (String forged : List.of("mcp-relay-1.eyJjYWxsIjoieCJ9.AAAA", "mcp-relay-1.", "mcp-relay-1.e30.e30")) {
			JsonNode refused = RawHttp.messagesOf(http.send(modern(http, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":"
					+ "\"tools/call\",\"params\":{\"name\":\"ask-model\",\"arguments\":{},\"inputResponses\":{},"
					+ "\"requestState\":\"" + forged + "\"," + META + "}}", "tools/call", "ask-model"))).get(0);
			assertThat(refused.at("/error/code").asInt()).as("%s: %s", forged, refused).isEqualTo(-32602);
			assertThat(refused.at("/error/data/reason").asText()).isEqualTo("request_state_invalid");
		}
	}

	private static dev.mcprelay.bridge.VersionBridge bridge(String id) {
		dev.mcprelay.proxy.Upstream upstream = relay.getBean(dev.mcprelay.proxy.UpstreamRegistry.class).find(id);
		return (dev.mcprelay.bridge.VersionBridge) relay.getBean(dev.mcprelay.proxy.UpstreamTransports.class)
			.of(upstream);
	}

	private static java.net.http.HttpRequest.Builder modern(RawHttp http, String body, String method, String name) {
		return modern(http, "raw", body, method, name);
	}

	private static java.net.http.HttpRequest.Builder modern(RawHttp http, String server, String body, String method,
			String name) {
		java.net.http.HttpRequest.Builder builder = http.post(server, body).header("MCP-Protocol-Version", "2026-07-28")
			.header("Mcp-Method", method);
		return name == null ? builder : builder.header("Mcp-Name", name);
	}

	private static String relayUrl(String id) {
		return "http://127.0.0.1:" + port() + "/mcp/" + id;
	}

	private static int port() {
		return ((WebServerApplicationContext) relay).getWebServer().getPort();
	}

}
