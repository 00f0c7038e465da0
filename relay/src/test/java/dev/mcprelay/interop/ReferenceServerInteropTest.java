package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
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
