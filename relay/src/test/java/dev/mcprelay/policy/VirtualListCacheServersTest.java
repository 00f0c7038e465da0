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
import dev.mcprelay.testsupport.RawHttp;

/**
 * What a virtual server keeps of a member's pages for a client without sessions (MCP 2026-07-28) is kept per virtual
 * server too: two virtual servers over one member, of which one is governed by a policy that hides
 * {@code delete_file} (a per-virtual-server view, docs/policies.md), never serve one another's pages of the member,
 * whichever listed first, though the caller and its view of the member are the same.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualListCacheServersTest {

	static final PolicyTestServer SERVER = new PolicyTestServer();

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		ApiKeyCallers.register(registry, "alice", "bob");
		registry.add("mcp-relay.servers.files.url", () -> SERVER.url("/mcp"));
		for (String virtual : List.of("open", "guarded", "open2", "guarded2")) {
			registry.add("mcp-relay.virtual-servers." + virtual + ".members[0]", () -> "files");
		}
		registry.add("mcp-relay.policies[0].name", () -> "guarded-never-deletes");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "guarded");
		registry.add("mcp-relay.policies[0].servers[1]", () -> "guarded2");
		registry.add("mcp-relay.policies[0].deny", () -> "mcp.tool.name == \"delete_file\"");
	}

	@AfterAll
	static void stop() {
		SERVER.close();
	}

	@Test
	void aPageListedThroughAnOpenVirtualServerIsNeverServedThroughAGuardedOne() {
		assertThat(tools("alice", "open")).as("through open").contains("files_delete_file");
		assertThat(tools("alice", "guarded")).as("through guarded, after open").doesNotContain("files_delete_file")
			.contains("files_read_file");
	}

	@Test
	void aPageListedThroughAGuardedVirtualServerIsNeverServedThroughAnOpenOne() {
		// another caller: another view of the member, so that the other test's pages are not this one's
		assertThat(tools("bob", "guarded2")).as("through guarded2").doesNotContain("files_delete_file")
			.contains("files_read_file");
		assertThat(tools("bob", "open2")).as("through open2, after guarded2").contains("files_delete_file");
	}

	/** The tools a 2026-07-28 request (no session) of {@code caller} lists through {@code virtual}. */
	private List<String> tools(String caller, String virtual) {
		RawHttp http = ApiKeyCallers.http(port, caller);
		List<JsonNode> messages = RawHttp.messagesOf(http.send(http.post(virtual, "{\"jsonrpc\":\"2.0\",\"id\":1,"
				+ "\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
				+ "\"2026-07-28\"}}}")));
		JsonNode answer = messages.get(messages.size() - 1);
		assertThat(answer.has("result")).as(answer.toString()).isTrue();
		return answer.at("/result/tools").findValuesAsText("name");
	}

}
