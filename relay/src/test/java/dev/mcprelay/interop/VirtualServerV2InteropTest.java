package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A virtual server for MCP 2026-07-28 clients, which keep no session: the TypeScript SDK v2 client discovers the
 * composition of two v2 servers, lists their merged tools, calls one through each prefix (the mirrored
 * {@code Mcp-Name} header rewritten with the name), and holds a {@code subscriptions/listen} stream merged from both.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualServerV2InteropTest {

	private static NodePeers.NodeServer server;

	@LocalServerPort
	int port;

	@BeforeAll
	static void startServer() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		server = NodePeers.startServer("listen-server-v2.mjs");
	}

	@AfterAll
	static void stopServer() throws Exception {
		if (server != null) {
			server.close();
		}
	}

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.one.url", () -> server.url());
		registry.add("mcp-relay.servers.two.url", () -> server.url());
		registry.add("mcp-relay.virtual-servers.both.members", () -> "one,two");
	}

	@Test
	void aV2ClientDiscoversListsCallsAndListensWithoutASession() throws Exception {
		JsonNode transcript = new ObjectMapper().readTree(NodePeers.runClient("virtual-v2-client.mjs",
				"http://127.0.0.1:" + port + "/mcp/both", "one_echo", "two_echo"));

		assertThat(transcript.at("/tools").toString()).isEqualTo("[\"one_echo\",\"two_echo\"]");
		assertThat(transcript.at("/calls/one_echo").asText()).isEqualTo("hi");
		assertThat(transcript.at("/calls/two_echo").asText()).isEqualTo("hi");
		assertThat(transcript.at("/unknown").toString()).contains("-32602");
		assertThat(transcript.at("/listenAfterOneSecond").asText()).as("the merged subscription stays open").isEqualTo("open");
	}

}
