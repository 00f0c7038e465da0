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
 * Tool search with real peers: the TypeScript SDK's client, through the relay, in front of the reference server
 * ({@code tool-search.enabled}, {@code echo} pinned). A client that knows nothing of the catalogue lists the entry
 * point, searches, gets {@code notifications/tools/list_changed} before the result on the same stream, lists the
 * found tool and calls it; a tool nobody searched for stays refused.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ToolSearchInteropTest {

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
		registry.add("mcp-relay.servers.everything.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.everything.tool-search.always-expose[0]", () -> "echo");
	}

	@Test
	void aClientFindsAndCallsAToolThroughSearchAlone() throws Exception {
		JsonNode transcript = new ObjectMapper()
			.readTree(NodePeers.runClient("tool-search-scenario.mjs", "http://127.0.0.1:" + port + "/mcp/everything"));

		assertThat(transcript.at("/before").toString()).isEqualTo("[\"search_available_tools\",\"echo\"]");
		assertThat(transcript.at("/order").toString()).as("the notification came before the result")
			.isEqualTo("[\"tools/list_changed\",\"result\"]");
		assertThat(transcript.at("/found").toString()).contains("\"get-sum\"");
		assertThat(transcript.at("/summary").asText()).contains("get-sum");
		assertThat(transcript.at("/after").toString()).contains("\"get-sum\"", "\"search_available_tools\"");
		assertThat(transcript.at("/sum/content/0/text").asText()).contains("42");
		assertThat(transcript.at("/notFound").toString()).as("a tool nobody searched for is refused")
			.isIn("{\"code\":-32602}", "{\"isError\":true}");
	}

}
