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

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScopedTokens;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestAuthorizationServer;

/**
 * Tool search over a virtual server decides the policies for each request, as the direct tool-search server does:
 * one subject holds a token with scope {@code tools:write} (W) and one without (R), and a policy refuses tools that
 * are not read-only without that scope. Whichever token searches first, R never sees {@code secret_admin} (in a
 * search or its list) and W always finds it: the merged catalogue is the members' whole, never one request's view of
 * it (cold review B, finding 2: the catalogue was kept after the first caller's policies, per subject).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualToolSearchPerRequestTest {

	static final TestAuthorizationServer AUTH = new TestAuthorizationServer();

	static final SdkMcpUpstream UPSTREAM = new SdkMcpUpstream();

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		ScopedTokens.register(registry, AUTH, 0);
		registry.add("mcp-relay.servers.files.url", () -> UPSTREAM.url("/mcp"));
		registry.add("mcp-relay.servers.files.arguments.reserved-prefix", () -> "");
		// two virtual servers over the one member: one for each order of the two tokens
		for (String virtual : List.of("wfirst", "rfirst")) {
			registry.add("mcp-relay.virtual-servers." + virtual + ".members[0]", () -> "files");
			registry.add("mcp-relay.virtual-servers." + virtual + ".tool-prefix", () -> "f_");
			registry.add("mcp-relay.virtual-servers." + virtual + ".tool-search.enabled", () -> "true");
		}
	}

	@AfterAll
	static void stop() throws Exception {
		AUTH.close();
		UPSTREAM.close();
	}

	@Test
	void theWriteScopedTokenSearchingFirstShowsTheReadOnlyOneNothingItMayNotCall() {
		McpSession writer = session("wfirst", ScopedTokens.WRITE);
		assertThat(search(writer)).contains("f_secret_admin", "f_secret_audit");
		assertThat(listed(writer)).contains("f_secret_admin");
		McpSession reader = session("wfirst", ScopedTokens.READ);
		assertThat(search(reader)).as("R's search after W's").contains("f_secret_audit").doesNotContain("f_secret_admin");
		assertThat(listed(reader)).as("R's list after W's").contains("f_secret_audit").doesNotContain("f_secret_admin");
		JsonNode call = RawHttp.messagesOf(reader.post(RawHttp.toolsCall(7, "f_secret_admin"))).get(0);
		assertThat(call.has("error")).as(call.toString()).isTrue();
	}

	@Test
	void theReadOnlyTokenSearchingFirstHidesNothingFromTheWriteScopedOne() {
		McpSession reader = session("rfirst", ScopedTokens.READ);
		assertThat(search(reader)).contains("f_secret_audit").doesNotContain("f_secret_admin");
		McpSession writer = session("rfirst", ScopedTokens.WRITE);
		assertThat(search(writer)).as("W's search after R's").contains("f_secret_admin");
		assertThat(listed(writer)).as("W's list after R's").contains("f_secret_admin");
		JsonNode call = RawHttp.messagesOf(writer.post(RawHttp.toolsCall(7, "f_secret_admin"))).get(0);
		assertThat(call.has("result")).as(call.toString()).isTrue();
	}

	private McpSession session(String virtual, String scope) {
		return McpSession.open(ScopedTokens.http(port, AUTH, "alice", scope), virtual);
	}

	private static List<String> search(McpSession session) {
		List<JsonNode> messages = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"search_available_tools\",\"arguments\":{\"query\":\"secret "
				+ "admin audit\"}}}"));
		JsonNode result = messages.get(messages.size() - 1);
		assertThat(result.has("result")).as(result.toString()).isTrue();
		return result.at("/result/structuredContent/tools").findValuesAsText("name");
	}

	private static List<String> listed(McpSession session) {
		List<JsonNode> messages = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":"
				+ "\"tools/list\"}"));
		return messages.get(messages.size() - 1).at("/result/tools").findValuesAsText("name");
	}

}
