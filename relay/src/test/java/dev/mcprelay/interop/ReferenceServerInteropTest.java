package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.mcprelay.testsupport.RawHttp;

/**
 * Interop with software we did not write: the official reference server ({@code @modelcontextprotocol/server-everything},
 * Streamable HTTP) and a client written with the official TypeScript SDK, both pinned in {@code interop/package-lock.json}.
 * The same scenarios run directly and through the relay and must give the same transcript: initialize (session id,
 * protocol version), tools/list, tools/call of several tools (one streaming progress), resources/list and read (also
 * from a template), prompts/list and get, server logging over the GET stream, and session end with DELETE.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ReferenceServerInteropTest {

	private static NodePeers.NodeServer server;

	@LocalServerPort
	int port;

	@BeforeAll
	static void startReferenceServer() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		server = NodePeers.startReferenceServer();
	}

	@AfterAll
	static void stopReferenceServer() throws Exception {
		if (server != null) {
			server.close();
		}
	}

	@DynamicPropertySource
	static void upstream(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.everything.url", () -> server.url());
	}

	@Test
	void theTypeScriptClientGetsTheSameAnswersDirectAndThroughTheRelay() throws Exception {
		ObjectMapper json = new ObjectMapper();

		JsonNode direct = json.readTree(NodePeers.runScenarios(server.url()));
		JsonNode relayed = json.readTree(NodePeers.runScenarios("http://127.0.0.1:" + port + "/mcp/everything"));

		assertThat(direct.at("/initialize/sessionIdIssued").asBoolean()).as("the scenarios ran for real").isTrue();
		assertThat(direct.at("/tools").toString()).contains("\"echo\"", "\"trigger-long-running-operation\"");
		assertThat(direct.at("/progress").toString()).isEqualTo("[[1,3],[2,3],[3,3]]");
		assertThat(direct.at("/serverLogging/received").asBoolean()).as("a log message came over the GET stream")
			.isTrue();
		assertThat(direct.at("/sessionTerminated").asBoolean()).isTrue();
		assertThat(relayed).as("the relayed transcript equals the direct one").isEqualTo(direct);
	}

	@Test
	void twoAcceptLinesReachTheReferenceServerAsTheyDoDirect() throws Exception {
		HttpResponse<String> direct = initializeWithTwoAcceptLines(server.url());
		HttpResponse<String> relayed = initializeWithTwoAcceptLines("http://127.0.0.1:" + port + "/mcp/everything");

		assertThat(direct.statusCode()).as("the reference server reads two Accept lines as one list").isEqualTo(200);
		assertThat(relayed.statusCode()).as("through the relay the two lines still reach it, so it answers alike")
			.isEqualTo(200);
		assertThat(RawHttp.messagesOf(relayed)).extracting(message -> message.at("/result/serverInfo/name").asText())
			.as("the relayed answer is the server's initialize result")
			.isEqualTo(RawHttp.messagesOf(direct).stream().map(message -> message.at("/result/serverInfo/name").asText()).toList());
	}

	/** An initialize whose {@code Accept} comes as two header lines, as some HTTP clients send a list. */
	private static HttpResponse<String> initializeWithTwoAcceptLines(String url) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create(url))
			.timeout(Duration.ofSeconds(20))
			.header("Content-Type", "application/json")
			.header("Accept", "application/json")
			.header("Accept", "text/event-stream")
			.POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
					+ "\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
					+ "\"clientInfo\":{\"name\":\"two-accept-lines\",\"version\":\"1\"}}}"))
			.build();
		return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
			.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@Test
	void theReferenceServerListensOnLoopbackOnly() throws Exception {
		Optional<InetAddress> external = Collections.list(NetworkInterface.getNetworkInterfaces())
			.stream()
			.flatMap(nic -> Collections.list(nic.getInetAddresses()).stream())
			.filter(address -> address instanceof Inet4Address && !address.isLoopbackAddress())
			.findFirst();
		Assumptions.assumeTrue(external.isPresent(), "this machine has no non-loopback address to try");

		assertThatThrownBy(() -> {
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress(external.get(), server.port()), 2000);
			}
		}).as("nothing listens on " + external.get()).isInstanceOf(java.io.IOException.class);
	}

}
