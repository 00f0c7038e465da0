package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

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
 * A server without tools (review 43n M-3): {@code notools}, the SDK's server with a prompt and nothing else, answers
 * {@code tools/list} -32601, method not found. A policy that reads the called tool reads that answer as a virtual
 * server's lists do ({@code NoSuchList}): the server lists no tools, so a call names a tool that does not exist and
 * is answered as such, and the empty list is kept as a list is. It was read as "unavailable": each call refused
 * -32603 {@code policy_undecidable} ("try again") and each call listed the server again.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyServerWithoutToolsTest {

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "none");
		registry.add("mcp-relay.servers.notools.url", () -> TestUpstreams.SDK.url("/prompts-only"));
		registry.add("mcp-relay.policies[0].name", () -> "read-only");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "notools");
		registry.add("mcp-relay.policies[0].deny",
				() -> "mcp.method == \"tools/call\" && !mcp.tool.annotations.?readOnlyHint.orValue(false)");
	}

	@Test
	void aCallToAServerWithoutToolsIsAnUnknownToolDecidedOnOneListing() {
		long listedBefore = asked("tools/list");
		McpSession session = McpSession.open(new RawHttp(port), "notools");
		for (int id = 1; id <= 3; id++) {
			List<JsonNode> messages = RawHttp.messagesOf(session.post(RawHttp.toolsCall(id, "anything")));
			JsonNode answer = messages.get(messages.size() - 1);
			assertThat(answer.at("/error/code").asInt()).as("%s", answer).isEqualTo(-32602);
			assertThat(answer.at("/error/message").asText()).as("%s", answer).isEqualTo("Unknown tool: anything");
		}
		assertThat(asked("tools/list") - listedBefore).as("the server's -32601 kept as a list that names no tool")
			.isEqualTo(1);
		assertThat(asked("tools/call")).as("no call went to the server").isZero();

		List<JsonNode> prompt = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":"
				+ "\"prompts/get\",\"params\":{\"name\":\"greeting\",\"arguments\":{\"name\":\"Ada\"}}}"));
		assertThat(prompt.get(prompt.size() - 1).has("result")).as("what it does offer is served: %s", prompt).isTrue();
	}

	/** How many requests of {@code method} reached the prompts-only server. */
	private static long asked(String method) {
		return TestUpstreams.SDK.seen()
			.stream()
			.filter(seen -> seen.path().equals("/prompts-only") && seen.body().contains("\"" + method + "\""))
			.count();
	}

}
