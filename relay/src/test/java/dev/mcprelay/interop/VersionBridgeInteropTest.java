package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RawHttp;

/**
 * The version bridge, direction 1 (issue 46): the official TypeScript SDK v1 client, which speaks only session-era MCP,
 * reaches the TypeScript SDK v2 server configured to accept only 2026-07-28 ({@code interop/only-2026-server.mjs}),
 * which refuses it directly. Through the relay it initializes, lists and calls tools, and ends its session, whether the
 * server's versions are learnt (server {@code learnt}) or pinned (server {@code pinned}); its GET stream is the
 * server's {@code subscriptions/listen}, which DELETE ends. A pair that shares a version (a 2026 client of the same
 * server) is relayed byte for byte. A tool that asks for input in the 2026 way ({@code input_required}) reaches the
 * client as the server requests of its session ({@code interop/bridge-input-client-v1.mjs}), answered, and the client
 * sees one result; a client that never answers gets an error, and one that cancels or goes away ends the round.
 */
class VersionBridgeInteropTest {

	private static final ObjectMapper JSON = new ObjectMapper();

	private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
			+ "{\"name\":\"mcp-relay-interop\",\"version\":\"1\"}}";

	private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
			+ "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";

	private static NodePeers.NodeServer server;

	private static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		server = NodePeers.startServer("only-2026-server.mjs");
		relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.properties("server.port=0", "server.address=127.0.0.1", "mcp-relay.servers.learnt.url=" + server.url(),
					"mcp-relay.servers.pinned.url=" + server.url(),
					"mcp-relay.servers.pinned.protocol-versions=2026-07-28",
					"mcp-relay.servers.impatient.url=" + server.url(),
					"mcp-relay.servers.impatient.protocol-versions=2026-07-28",
					"mcp-relay.servers.impatient.timeouts.streaming-idle=2s",
					"mcp-relay.virtual-servers.composed.members[0]=pinned",
					"mcp-relay.virtual-servers.composed.tool-prefix=")
			.run();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (server != null) {
			server.close();
		}
	}

	@Test
	void aSessionEraClientReachesA2026OnlyServerThroughTheBridge() throws Exception {
		JsonNode direct = JSON.readTree(NodePeers.runClient("bridge-client-v1.mjs", server.url()));
		assertThat(direct.has("failed")).as("directly, the server refuses the 2025 client: %s", direct).isTrue();

		for (String id : List.of("learnt", "pinned", "composed")) {
			int logMark = CapturedLogs.all().size();
			JsonNode bridged = JSON.readTree(NodePeers.runClient("bridge-client-v1.mjs", relayUrl(id)));
			assertThat(bridged.path("failed").isMissingNode()).as("%s: %s", id, bridged).isTrue();
			if (!id.equals("composed")) {
				assertThat(bridged.path("serverName").asText()).as("%s: the server's own name, from its discovery", id)
					.isEqualTo("only-2026");
			}
			assertThat(bridged.path("protocolVersion").asText()).as("%s: the client's version", id)
				.isEqualTo("2025-11-25");
			assertThat(bridged.path("hasSession").asBoolean()).as("%s: a session of the relay's", id).isTrue();
			assertThat(bridged.path("tools")).extracting(JsonNode::asText).containsExactly("add", "confirm", "echo",
					"insist", "roots");
			assertThat(bridged.path("add").asText()).isEqualTo("5");
			assertThat(bridged.path("echo").asText()).as("a text that is not ASCII").isEqualTo("héllo");
			assertThat(bridged.path("unknownTool").toString()).as("the server's own answer to an unknown tool")
				.matches(".*(isError\":true|error\").*");
			assertThat(bridged.path("terminated").asBoolean()).isTrue();
			assertThat(bridged.path("afterTermination").path("error").asText())
				.as("%s: after its DELETE the SDK sends no session id, refused as a 2025 server refuses it", id)
				.contains("400");
			String logged = id.equals("composed") ? "pinned" : id;
			assertThat(CapturedLogs.since(logMark)).as("%s: the client's methods, in its version, in the access log", id)
				.anyMatch(line -> line.contains("rpc_method=initialize") && line.contains("server=" + logged))
				.anyMatch(line -> line.contains("rpc_method=tools/call") && line.contains("server=" + logged));
		}
	}

	@Test
	void theClientsGetStreamIsTheServersListenAndDeleteEndsIt() throws Exception {
		RawHttp http = new RawHttp(port());
		HttpResponse<String> initialized = http.send(http.post("pinned", INITIALIZE));
		String session = initialized.headers().firstValue("Mcp-Session-Id").orElseThrow();
		assertThat(RawHttp.messagesOf(initialized).get(0).at("/result/capabilities/tools/listChanged").asBoolean())
			.as("the server's capabilities, from its discovery").isTrue();

		HttpResponse<InputStream> stream = http.open(http.request("pinned").header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25").GET());
		assertThat(stream.statusCode()).isEqualTo(200);
		assertThat(stream.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
		CompletableFuture<String> body = CompletableFuture.supplyAsync(() -> RawHttp.readAll(stream.body()));

		HttpResponse<String> deleted = http.send(http.request("pinned").header("Mcp-Session-Id", session)
			.header("MCP-Protocol-Version", "2025-11-25").DELETE());
		assertThat(deleted.statusCode()).isEqualTo(200);
		String events = body.get(10, TimeUnit.SECONDS);
		assertThat(events).as("the subscription's acknowledgement is the bridge's, not the client's")
			.doesNotContain("acknowledged").doesNotContain("\"error\"");

		HttpResponse<String> afterwards = http.send(http.post("pinned", RawHttp.toolsCall(2, "echo"))
			.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25"));
		assertThat(afterwards.statusCode()).as("a session ended by DELETE is unknown").isEqualTo(404);
	}

	@Test
	void aPairThatSharesAVersionIsRelayedByteForByte() throws Exception {
		RawHttp http = new RawHttp(port());
		java.net.http.HttpClient direct = java.net.http.HttpClient.newHttpClient();
		for (String[] request : List.of(
				new String[] { "server/discover", null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" + META + "}}" },
				new String[] { "tools/list", null, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" + META + "}}" },
				new String[] { "tools/call", "echo", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}," + META + "}}" })) {
			java.net.http.HttpRequest.Builder toServer = java.net.http.HttpRequest.newBuilder(java.net.URI.create(server.url()))
				.header("Content-Type", "application/json").header("Accept", RawHttp.ACCEPT_BOTH)
				.POST(java.net.http.HttpRequest.BodyPublishers.ofString(request[2]));
			java.net.http.HttpRequest.Builder toRelay = http.post("learnt", request[2]);
			for (java.net.http.HttpRequest.Builder builder : List.of(toServer, toRelay)) {
				builder.header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", request[0]);
				if (request[1] != null) {
					builder.header("Mcp-Name", request[1]);
				}
			}
			byte[] expected = direct.send(toServer.build(), HttpResponse.BodyHandlers.ofByteArray()).body();
			HttpResponse<byte[]> relayed = direct.send(toRelay.build(), HttpResponse.BodyHandlers.ofByteArray());
			assertThat(new String(relayed.body(), java.nio.charset.StandardCharsets.UTF_8))
				.as("%s of a 2026 client, through the relay", request[0])
				.isEqualTo(new String(expected, java.nio.charset.StandardCharsets.UTF_8));
		}
	}

	@Test
	void aBridgedSessionBelongsToTheCallerThatOpenedIt() throws Exception {
		try (ConfigurableApplicationContext keyed = new SpringApplicationBuilder(McpRelayApplication.class,
				dev.mcprelay.testsupport.OwnEventLoops.class).run(
				"--server.port=0", "--server.address=127.0.0.1", "--mcp-relay.servers.pinned.url=" + server.url(),
				"--mcp-relay.servers.pinned.protocol-versions=2026-07-28", "--mcp-relay.security.mode=api-key",
				"--mcp-relay.security.api-keys[0].client=alice",
				"--mcp-relay.security.api-keys[0].key-sha256=" + dev.mcprelay.Sha256.hex("alice-key-0123456789"),
				"--mcp-relay.security.api-keys[0].servers[0]=*", "--mcp-relay.security.api-keys[1].client=bob",
				"--mcp-relay.security.api-keys[1].key-sha256=" + dev.mcprelay.Sha256.hex("bob-key-0123456789"),
				"--mcp-relay.security.api-keys[1].servers[0]=*")) {
			int port = ((WebServerApplicationContext) keyed).getWebServer().getPort();
			RawHttp alice = new RawHttp(port, "X-Api-Key", "alice-key-0123456789");
			RawHttp bob = new RawHttp(port, "X-Api-Key", "bob-key-0123456789");
			String session = alice.send(alice.post("pinned", INITIALIZE)).headers().firstValue("Mcp-Session-Id")
				.orElseThrow();
			String call = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
					+ "\"arguments\":{\"text\":\"mine\"}}}";

			assertThat(bob.send(bob.post("pinned", call).header("Mcp-Session-Id", session)).statusCode())
				.as("another caller's POST in the session").isEqualTo(404);
			assertThat(bob.send(bob.request("pinned").header("Mcp-Session-Id", session).DELETE()).statusCode())
				.as("another caller's DELETE of the session").isEqualTo(404);
			HttpResponse<String> own = alice.send(alice.post("pinned", call).header("Mcp-Session-Id", session));
			assertThat(RawHttp.messagesOf(own).get(0).at("/result/content/0/text").asText())
				.as("the session is still its caller's").isEqualTo("mine");
		}
	}

	@Test
	void aServersRequestsForInputReachTheSessionEraClientAndItSeesOneResult() throws Exception {
		for (String id : List.of("learnt", "pinned")) {
			JsonNode transcript = JSON.readTree(NodePeers.runClient("bridge-input-client-v1.mjs", relayUrl(id), "answer"));
			assertThat(transcript.path("confirm").asText())
				.as("%s: two rounds (elicitation, then sampling), each retry with the answers and the requestState "
						+ "the server gave: %s", id, transcript)
				.isEqualTo("deploy: confirmed=true, summary=all good, state kept=true");
			assertThat(transcript.path("roots").asText()).as("%s: %s", id, transcript).isEqualTo("file:///work");
			assertThat(transcript.path("insist").path("error").path("reason").asText())
				.as("%s: a server that asks for ever is cut after the rounds' bound: %s", id, transcript)
				.isEqualTo("input_required_rounds_exceeded");
			List<String> asked = new java.util.ArrayList<>();
			transcript.path("asked").forEach(method -> asked.add(method.asText()));
			assertThat(asked).as("%s: what the client was asked, as 2025 server requests", id)
				.startsWith("elicitation/create", "sampling/createMessage", "roots/list")
				.hasSize(3 + 8);
		}
		assertThat(bridge("pinned").awaitedInputAnswers()).as("nothing left waiting").isZero();
	}

	@Test
	void aClientThatNeverAnswersOrFailsToGetsAnError() throws Exception {
		JsonNode transcript = JSON.readTree(NodePeers.runClient("bridge-input-client-v1.mjs", relayUrl("impatient"),
				"silent"));
		assertThat(transcript.path("asked")).extracting(JsonNode::asText).containsExactly("elicitation/create");
		assertThat(transcript.path("confirm").path("error").path("code").asInt()).as("%s", transcript)
			.isEqualTo(-32603);
		assertThat(transcript.path("confirm").path("error").path("reason").asText()).as("%s", transcript)
			.isEqualTo("input_required_timeout");
		assertThat(bridge("impatient").awaitedInputAnswers()).as("nothing left waiting").isZero();

		JsonNode refused = JSON.readTree(NodePeers.runClient("bridge-input-client-v1.mjs", relayUrl("pinned"),
				"refuse"));
		assertThat(refused.path("confirm").path("error").path("reason").asText())
			.as("the client answered the server's request with an error: %s", refused)
			.isEqualTo("input_request_failed");
	}

	@Test
	void aClientsCancellationEndsTheRoundItsRequestWaitsIn() throws Exception {
		RawHttp http = new RawHttp(port());
		String initialize = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
				+ "\"2025-11-25\",\"capabilities\":{\"elicitation\":{\"form\":{}}},\"clientInfo\":{\"name\":\"raw\","
				+ "\"version\":\"1\"}}}";
		String session = http.send(http.post("pinned", initialize)).headers().firstValue("Mcp-Session-Id")
			.orElseThrow();
		HttpResponse<InputStream> call = http.open(http.post("pinned", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"confirm\",\"arguments\":{\"action\":\"deploy\"}}}")
			.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25"));
		java.io.BufferedReader lines = new java.io.BufferedReader(
				new java.io.InputStreamReader(call.body(), java.nio.charset.StandardCharsets.UTF_8));
		String line;
		do {
			line = lines.readLine();
		}
		while (line != null && !line.contains("elicitation/create"));
		assertThat(line).as("the server's elicitation, on the call's stream").isNotNull();
		assertThat(bridge("pinned").awaitedInputAnswers()).isEqualTo(1);
		CompletableFuture<String> rest = CompletableFuture.supplyAsync(() -> lines.lines()
			.collect(java.util.stream.Collectors.joining("\n")));

		HttpResponse<String> cancelled = http.send(http.post("pinned", "{\"jsonrpc\":\"2.0\",\"method\":"
				+ "\"notifications/cancelled\",\"params\":{\"requestId\":7,\"reason\":\"changed my mind\"}}")
			.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25"));

		assertThat(cancelled.statusCode()).isEqualTo(202);
		// the call's stream stays open to the client: only the cancellation ends it before the round's bound (60 s)
		assertThat(rest.get(20, TimeUnit.SECONDS)).as("the stream ends with no answer to the cancelled call")
			.doesNotContain("\"id\":7");
		assertThat(bridge("pinned").awaitedInputAnswers()).as("the round ended").isZero();
	}

	@Test
	void aClientThatAbortsACallThatWaitsForInputAndGoesAwayEndsItsRound() throws Exception {
		JsonNode transcript = JSON.readTree(NodePeers.runClient("bridge-input-client-v1.mjs", relayUrl("pinned"),
				"cancel"));
		assertThat(transcript.path("asked")).extracting(JsonNode::asText).containsExactly("elicitation/create");
		assertThat(transcript.path("confirm").path("error").isMissingNode()).as("the call was aborted: %s", transcript)
			.isFalse();
		assertThat(transcript.path("add").asText()).as("the session goes on: %s", transcript).isEqualTo("5");
		// the client's notifications/cancelled is a POST of its own, which the client does not wait for, and the client
		// went away after it (its process ended, which closes the call's stream): wait for their effect (the server's
		// streaming-idle, 60 s, is what would end the round otherwise)
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (bridge("pinned").awaitedInputAnswers() > 0 && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(bridge("pinned").awaitedInputAnswers()).as("the cancelled call's round ended").isZero();
	}

	private static dev.mcprelay.bridge.VersionBridge bridge(String id) {
		dev.mcprelay.proxy.Upstream upstream = relay.getBean(dev.mcprelay.proxy.UpstreamRegistry.class).find(id);
		return (dev.mcprelay.bridge.VersionBridge) relay.getBean(dev.mcprelay.proxy.UpstreamTransports.class)
			.of(upstream);
	}

	private static String relayUrl(String id) {
		return "http://127.0.0.1:" + port() + "/mcp/" + id;
	}

	private static int port() {
		return ((WebServerApplicationContext) relay).getWebServer().getPort();
	}

}
