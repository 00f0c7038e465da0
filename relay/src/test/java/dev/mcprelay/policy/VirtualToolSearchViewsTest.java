package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.ApiKeyCallers;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * Tool search over a virtual server keeps each caller's merged catalogue apart: each member's list reaches it through
 * the caller's own policies, so a catalogue merged for alice (who may use delete_file) is never searched for bob (who
 * may not), whoever searched first.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualToolSearchViewsTest {

	static final PolicyTestServer SERVER = new PolicyTestServer();

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		ApiKeyCallers.register(registry, "alice", "bob");
		registry.add("mcp-relay.servers.files.url", () -> SERVER.url("/mcp"));
		registry.add("mcp-relay.virtual-servers.all.members[0]", () -> "files");
		registry.add("mcp-relay.virtual-servers.all.tool-prefix", () -> "v_");
		registry.add("mcp-relay.virtual-servers.all.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.policies[0].name", () -> "bob-never-deletes");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "*");
		registry.add("mcp-relay.policies[0].deny",
				() -> "caller.client == \"bob\" && mcp.method == \"tools/call\" && mcp.tool.name == \"delete_file\"");
	}

	@AfterAll
	static void stop() {
		SERVER.close();
	}

	@Test
	void oneCallersMergedCatalogueIsNeverSearchedForAnother() {
		assertThat(search("alice")).as("alice's search").contains("v_delete_file");
		assertThat(search("bob")).as("bob's search, after alice's").doesNotContain("v_delete_file")
			.contains("v_read_file");
	}

	private List<String> search(String caller) {
		McpSession session = McpSession.open(ApiKeyCallers.http(port, caller), "all");
		List<JsonNode> messages = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"search_available_tools\",\"arguments\":{\"query\":\"file\"}}}"));
		JsonNode result = messages.get(messages.size() - 1);
		assertThat(result.has("result")).as(result.toString()).isTrue();
		return result.at("/result/structuredContent/tools").findValuesAsText("name");
	}

}
