package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.RawHttp;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The legacy HTTP+SSE bridge with real servers that speak only that transport: the reference server in its
 * {@code sse} mode, and mcp-hub serving the reference server over stdio. The TypeScript SDK's Streamable HTTP client
 * talks to the relay ({@code transport: sse}); the same SDK's SSE client talks to each server directly; both must get
 * the same answers: tools, calls (one with progress), resources, prompts, a server notification on the GET stream. An
 * {@code initialize} the reference server answers with an error ends its bridged session and closes its event stream
 * at once (not after {@code sessions.idle-timeout}).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class LegacySseInteropTest {

	private static NodePeers.NodeServer everything;

	private static NodePeers.NodeServer hub;

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	@BeforeAll
	static void startServers() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		everything = NodePeers.startServer("everything-sse-on-loopback.mjs");
		hub = NodePeers.startServer("mcp-hub-on-loopback.mjs");
	}

	@AfterAll
	static void stopServers() throws Exception {
		if (everything != null) {
			everything.close();
		}
		if (hub != null) {
			hub.close();
		}
	}

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.everything-sse.url", () -> sseUrl(everything));
		registry.add("mcp-relay.servers.everything-sse.transport", () -> "sse");
		registry.add("mcp-relay.servers.hub.url", () -> hubUrl());
		registry.add("mcp-relay.servers.hub.transport", () -> "sse");
	}

	@Test
	void aStreamableClientThroughTheRelayGetsWhatTheSseClientGetsDirect() throws Exception {
		ObjectMapper json = new ObjectMapper();

		JsonNode direct = json.readTree(NodePeers.runClient("scenarios.mjs", sseUrl(everything), "sse"));
		ObjectNode relayed = (ObjectNode) json.readTree(NodePeers.runClient("scenarios.mjs", relay("everything-sse")));

		assertThat(direct.at("/tools").toString()).as("the scenarios ran for real").contains("\"echo\"");
		// The SDK's SSE client, direct, reports two of the three progress steps (every run seen here): its last one is
		// lost on the client side. Through the relay all three reach the client, as over Streamable HTTP direct.
		assertThat(direct.at("/progress").toString()).startsWith("[[1,3],[2,3]");
		assertThat(relayed.at("/progress").toString()).isEqualTo("[[1,3],[2,3],[3,3]]");
		assertThat(direct.at("/serverLogging/received").asBoolean()).as("a log message came on the stream").isTrue();
		assertThat(relayed.at("/initialize/sessionIdIssued").asBoolean()).as("the relay minted a session").isTrue();
		assertThat(relayed.at("/sessionTerminated").asBoolean()).as("DELETE ended the bridged session").isTrue();
		assertThat(relayed.at("/afterTermination").asText()).as("the ended session is gone").contains("404");
		// what only the Streamable HTTP transport has: the negotiated version, and DELETE
		((ObjectNode) relayed.get("initialize")).remove("protocolVersion");
		relayed.remove("sessionTerminated");
		relayed.remove("afterTermination");
		relayed.set("progress", direct.get("progress"));
		assertThat(relayed).as("the relayed transcript equals the direct one").isEqualTo(direct);
	}

	@Test
	void mcpHubThroughTheRelayAnswersAsItDoesDirect() throws Exception {
		ObjectMapper json = new ObjectMapper();

		JsonNode direct = json.readTree(NodePeers.runClient("hub-scenarios.mjs", hubUrl(), "sse"));
		JsonNode relayed = json.readTree(NodePeers.runClient("hub-scenarios.mjs", relay("hub")));

		assertThat(direct.at("/tools").toString()).as("mcp-hub serves the reference server").contains("everything__echo");
		assertThat(direct.at("/sum/content/0/text").asText()).contains("42");
		assertThat(relayed).as("the relayed transcript equals the direct one").isEqualTo(direct);
	}

	@Test
	void anInitializeTheServerAnswersWithAnErrorEndsTheBridgedSessionAndItsStream() throws Exception {
		java.nio.file.Path serverLog = everything.log();
		long disconnected = disconnections(serverLog);
		RawHttp http = new RawHttp(port);

		HttpResponse<String> refused = http.send(http.post("everything-sse",
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"capabilities\":{}}}"));

		assertThat(RawHttp.messagesOf(refused)).as("the server's own answer: an error, no protocol version given")
			.singleElement()
			.satisfies(answer -> assertThat(answer.at("/error/code").asInt()).isNotZero());
		awaitUntil(() -> disconnections(serverLog) > disconnected,
				"the server saw the session's event stream closed (it logs 'Client Disconnected')");
		awaitUntil(() -> registry.get(RelayMeters.BRIDGED_SESSIONS).tag(RelayMeters.SERVER, "everything-sse").gauge()
			.value() == 0, "the relay holds no session for it");
		assertThat(refused.headers().firstValue("Mcp-Session-Id")).as("an initialize answered with an error names no "
				+ "session: the one it opened has ended").isEmpty();
	}

	/** How often the reference server logged that a client's event stream closed. */
	private static long disconnections(java.nio.file.Path serverLog) {
		try {
			return java.nio.file.Files.readAllLines(serverLog).stream().filter(line -> line.contains("Client Disconnected")).count();
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	private static void awaitUntil(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
		long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("waited 10s in vain until " + what);
			}
			Thread.sleep(20);
		}
	}

	private String relay(String server) {
		return "http://127.0.0.1:" + port + "/mcp/" + server;
	}

	private static String sseUrl(NodePeers.NodeServer server) {
		return "http://127.0.0.1:" + server.port() + "/sse";
	}

	private static String hubUrl() {
		return "http://127.0.0.1:" + hub.port() + "/mcp";
	}

}
