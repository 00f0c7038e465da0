package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.RawHttp;

/**
 * A virtual server routes a 2026-07-28 client's {@code resources/read} by its members' resource lists, which it lists
 * itself: to a member that speaks only 2026-07-28 (the TypeScript SDK v2 fixture of the conformance suite,
 * {@code interop/conformance-server.mjs}, ERA 2026, whose resource {@code test://static-text} only it publishes),
 * those listings are well-formed 2026-07-28 requests, carrying the relay's own {@code _meta} envelope (review 43j
 * N-9: without it the member answered 400, and the read was answered "no member lists it").
 */
class VirtualResourcesOf2026MemberInteropTest {

	private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"},"
			+ "\"io.modelcontextprotocol/clientCapabilities\":{}}";

	private static NodePeers.NodeServer server;

	private static NodePeers.NodeServer other;

	private static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		server = NodePeers.startServer("conformance-server.mjs", Map.of("ERA", "2026"));
		other = NodePeers.startServer("only-2026-server.mjs", Map.of());
		relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.properties("server.port=0", "server.address=127.0.0.1", "mcp-relay.servers.c26.url=" + server.url(),
					"mcp-relay.servers.c26.protocol-versions=2026-07-28", "mcp-relay.servers.o26.url=" + other.url(),
					"mcp-relay.servers.o26.protocol-versions=2026-07-28",
					"mcp-relay.virtual-servers.vt.members=o26,c26")
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
		if (other != null) {
			other.close();
		}
	}

	@Test
	void aReadOfA2026MembersResourceIsRoutedToIt() {
		RawHttp http = new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
		HttpResponse<String> response = http.send(http.post("vt", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
				+ "\"resources/read\",\"params\":{\"uri\":\"test://static-text\"," + META + "}}")
			.header("MCP-Protocol-Version", "2026-07-28")
			.header("Mcp-Method", "resources/read")
			.header("Mcp-Name", "test://static-text"));
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as("%d %s", response.statusCode(), response.body()).isNotEmpty();
		JsonNode answer = messages.get(messages.size() - 1);
		assertThat(answer.at("/result/contents/0/text").asText()).as("routed to the member that lists it: %s", answer)
			.isEqualTo("This is the content of the static text resource.");
	}

}
