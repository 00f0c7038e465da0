package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RawHttp;

/**
 * What a policy reads decides what a call costs and who is blamed. A server governed only by a rule about prompts
 * passes every tool call straight on (no listing on the relay's account; a name the server does not publish gets the
 * server's own answer) and blames no policy. A server governed by a rule that reads the tool answers a name it did not
 * publish as unknown, from the catalogue it knows, without sending it upstream (a spelling the server might resolve
 * leniently, {@code Delete_File}, never reaches it); the relay lists the catalogue itself at most once per catalogue
 * (here two pages), however many unknown names are called, and the refusal is the unknown name's, not a policy's.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyUnknownToolsTest {

	static final PolicyTestServer SERVER = new PolicyTestServer();

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "none");
		registry.add("mcp-relay.servers.prompts-only.url", () -> SERVER.url("/paged/mcp"));
		registry.add("mcp-relay.servers.by-tool.url", () -> SERVER.url("/paged/mcp"));
		registry.add("mcp-relay.policies[0].name", () -> "prompt-guard");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "prompts-only");
		registry.add("mcp-relay.policies[0].deny", () -> "mcp.prompt.name == \"secret_prompt\"");
		registry.add("mcp-relay.policies[1].name", () -> "no-delete");
		registry.add("mcp-relay.policies[1].servers[0]", () -> "by-tool");
		registry.add("mcp-relay.policies[1].deny", () -> "mcp.tool.name == \"delete_file\"");
	}

	@AfterAll
	static void stop() {
		SERVER.close();
	}

	@BeforeEach
	void clear() {
		SERVER.clear();
	}

	@Test
	void aRuleAboutPromptsCostsAToolCallNothingAndBlamesNoOne() {
		int mark = CapturedLogs.all().size();
		assertThat(call("prompts-only", "read_file").has("result")).isTrue();
		JsonNode unknown = call("prompts-only", "no_such_tool");
		assertThat(unknown.at("/error/message").asText()).as("the server's own answer").isEqualTo("Tool no_such_tool not found");

		assertThat(SERVER.count("tools/list")).as("the relay listed nothing on its own account").isZero();
		assertThat(SERVER.count("tools/call")).isEqualTo(2);
		assertThat(CapturedLogs.since(mark)).as("no policy is blamed")
			.noneMatch(line -> line.contains("prompt-guard"));
	}

	@Test
	void aNameTheServerDidNotPublishIsUnknownFromTheCatalogueListedOnce() {
		int mark = CapturedLogs.all().size();
		for (String name : List.of("Delete_File", "no_such_1", "no_such_2", " read_file", "no_such_3")) {
			JsonNode unknown = call("by-tool", name);
			assertThat(unknown.at("/error/code").asInt()).as(name).isEqualTo(-32602);
			assertThat(unknown.at("/error/message").asText()).as(name).isEqualTo("Unknown tool: " + name);
		}
		assertThat(call("by-tool", "read_file").has("result")).isTrue();
		assertThat(call("by-tool", "delete_file").at("/error/message").asText()).isEqualTo("Unknown tool: delete_file");

		assertThat(SERVER.received()).as("only read_file was called upstream")
			.filteredOn(message -> message.path("method").asText().equals("tools/call"))
			.extracting(message -> message.at("/params/name").asText())
			.containsExactly("read_file");
		assertThat(SERVER.count("tools/list")).as("one listing of the catalogue's two pages").isEqualTo(2);
		Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(CapturedLogs.since(mark))
				.as("an unknown name is refused as one, and no policy is blamed for it")
				.anyMatch(line -> line.startsWith("INFO mcp.relay.access server=by-tool ")
						&& line.contains(" reason=unknown_tool ") && !line.contains("rule=no-delete"))
				.anyMatch(line -> line.startsWith("INFO mcp.relay.access server=by-tool ")
						&& line.contains(" reason=policy_denied ") && line.contains(" rule=no-delete ")));
		assertThat(CapturedLogs.since(mark)).noneMatch(line -> line.contains("failed at run time"));
	}

	private JsonNode call(String server, String tool) {
		RawHttp http = new RawHttp(port);
		String body = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
				+ dev.mcprelay.jsonrpc.JsonRpcParser.mapper().valueToTree(tool) + ",\"arguments\":{}}}";
		List<JsonNode> messages = RawHttp.messagesOf(http.send(http.post(server, body)));
		assertThat(messages).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

}
