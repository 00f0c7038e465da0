package dev.mcprelay.interceptors.toolsearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * Tool search in front of a stateless upstream (the MCP Java SDK's stateless server, which gives no
 * {@code Mcp-Session-Id}): the relay gives the client a session of its own (DESIGN section 7), so that what a search
 * found is listed and callable in that session and nothing else is, as docs/interceptors.md says; the upstream never
 * sees the relay's session id.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ToolSearchStatelessUpstreamTest {

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.stateless-search.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.stateless-search.tool-search.enabled", () -> "true");
	}

	@Test
	void aStatelessUpstreamsClientGetsARelaySessionInWhichOnlyWhatItsSearchesFoundIsListedAndCallable() {
		McpSession session = McpSession.open(new RawHttp(port), "stateless-search");
		assertThat(session.id()).as("a session of the relay's own, though the upstream keeps none").isNotBlank();

		assertThat(toolNames(session)).containsExactly("search_available_tools");
		JsonNode early = last(session.post(RawHttp.toolsCall(2, "echo")));
		assertThat(early.at("/error/code").asInt()).as("not found by a search yet: %s", early).isEqualTo(-32602);

		List<JsonNode> searched = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"search_available_tools\",\"arguments\":{\"query\":\"echo\"}}}"));
		assertThat(searched.get(searched.size() - 1).toString()).contains("echo");

		assertThat(toolNames(session)).contains("search_available_tools", "echo");
		assertThat(last(session.post(RawHttp.toolsCall(4, "echo"))).has("result")).as("found, so callable").isTrue();
		assertThat(TestUpstreams.SDK.seen())
			.filteredOn(seen -> seen.path().equals("/stateless") && seen.body().contains("tools/call"))
			.as("the relay's session id stays the relay's")
			.allSatisfy(seen -> assertThat(seen.headers().getFirst("Mcp-Session-Id")).isNull());
	}

	private static List<String> toolNames(McpSession session) {
		return last(session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}")).at("/result/tools")
			.findValuesAsText("name");
	}

	private static JsonNode last(HttpResponse<String> response) {
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as(response.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

}
