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
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * What a policy reads decides what a call costs and who is blamed. A server governed only by a rule about prompts
 * passes every tool call straight on (no listing on the relay's account; a name the server does not publish gets the
 * server's own answer) and blames no policy. A server governed by a rule that reads the tool answers a name it did not
 * publish as unknown, from the catalogue it knows, without sending it upstream (a spelling the server might resolve
 * leniently, {@code Delete_File}, never reaches it); the relay lists the catalogue itself at most once per catalogue
 * (here two pages), however many unknown names are called, and the refusal is the unknown name's, not a policy's.
 * So a name refused and one that does not exist get the same answer, whoever asks: a prompt on a server whose rule reads
 * the prompt, and a tool through a virtual server, whose answer names what the client sent and is the virtual server's
 * own for a name none of its members has.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyUnknownNamesTest {

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
		registry.add("mcp-relay.servers.by-tool-v.url", () -> SERVER.url("/paged/mcp"));
		registry.add("mcp-relay.policies[1].servers[1]", () -> "by-tool-v");
		registry.add("mcp-relay.virtual-servers.both.members[0]", () -> "by-tool-v");
		registry.add("mcp-relay.virtual-servers.both.members[1]", () -> "prompts-only");
		registry.add("mcp-relay.virtual-servers.both.tool-prefix", () -> "{server}_");
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

	@Test
	void aRefusedPromptIsAnsweredAsOneThatDoesNotExist() {
		JsonNode refused = request("prompts-only", "prompts/get", "{\"name\":\"secret_prompt\"}");
		JsonNode unknown = request("prompts-only", "prompts/get", "{\"name\":\"no_such_prompt\"}");

		assertThat(refused.get("error")).as("refused: %s", refused)
			.isEqualTo(RawHttp.json("{\"code\":-32602,\"message\":\"Unknown prompt: secret_prompt\"}"));
		assertThat(unknown.get("error")).as("does not exist: %s", unknown)
			.isEqualTo(RawHttp.json("{\"code\":-32602,\"message\":\"Unknown prompt: no_such_prompt\"}"));
		assertThat(request("prompts-only", "prompts/get", "{\"name\":\"public_prompt\"}").has("result")).isTrue();
		assertThat(SERVER.received()).as("only the published prompt the caller may use was asked for")
			.filteredOn(message -> message.path("method").asText().equals("prompts/get"))
			.extracting(message -> message.at("/params/name").asText())
			.containsExactly("public_prompt");
	}

	@Test
	void throughAVirtualServerARefusalIsTheVirtualServersOwnAnswerForWhatTheClientSent() {
		McpSession session = McpSession.open(new RawHttp(port), "both");
		JsonNode refused = RawHttp.messagesOf(session.post(RawHttp.toolsCall(4, "by-tool-v_delete_file"))).get(0);
		JsonNode unknown = RawHttp.messagesOf(session.post(RawHttp.toolsCall(5, "by-tool-v_no_such_tool"))).get(0);
		JsonNode noMember = RawHttp.messagesOf(session.post(RawHttp.toolsCall(6, "nobody_delete_file"))).get(0);

		assertThat(refused.get("error")).as("refused: %s", refused).isEqualTo(RawHttp.json(
				"{\"code\":-32602,\"message\":\"Unknown tool: by-tool-v_delete_file\",\"data\":{\"reason\":\"unknown_tool\"}}"));
		assertThat(unknown.get("error")).as("does not exist: %s", unknown).isEqualTo(RawHttp.json(
				"{\"code\":-32602,\"message\":\"Unknown tool: by-tool-v_no_such_tool\",\"data\":{\"reason\":\"unknown_tool\"}}"));
		assertThat(noMember.at("/error/data/reason").asText()).as("the virtual server's own, for no member: %s", noMember)
			.isEqualTo("unknown_tool");
		JsonNode prompt = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"prompts/get\","
				+ "\"params\":{\"name\":\"prompts-only_secret_prompt\"}}")).get(0);
		assertThat(prompt.at("/error/message").asText()).as(prompt.toString())
			.isEqualTo("Unknown prompt: prompts-only_secret_prompt");
	}

	private JsonNode request(String server, String method, String params) {
		RawHttp http = new RawHttp(port);
		List<JsonNode> messages = RawHttp.messagesOf(http.send(http.post(server,
				"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"" + method + "\",\"params\":" + params + "}")));
		assertThat(messages).isNotEmpty();
		return messages.get(messages.size() - 1);
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
