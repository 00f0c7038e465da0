package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * What tool search offers is decided as a call of it would be, from the definition the server publishes now (cold
 * review 43d, finding 2): a real MCP server (the SDK's) republishes a tool as no longer read-only while no client holds
 * a GET stream open, so no {@code list_changed} reaches the relay. Search's index still holds the old definition; the
 * call is refused once that definition is older than the server's {@code tools.annotations-max-age}, and so must
 * search's results and the list it answers be: the relay lists the tools again and leaves the tool out of both, so
 * that what is listed is what may be called.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ToolSearchFreshnessTest {

	static final SdkMcpUpstream UPSTREAM = new SdkMcpUpstream();

	static final Duration MAX_AGE = Duration.ofSeconds(1);

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "none");
		registry.add("mcp-relay.servers.searched.url", () -> UPSTREAM.url("/mcp"));
		registry.add("mcp-relay.servers.searched.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.searched.tools.annotations-max-age", () -> MAX_AGE.toMillis() + "ms");
		registry.add("mcp-relay.policies[0].name", () -> "read-only");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "*");
		registry.add("mcp-relay.policies[0].deny",
				() -> "mcp.method == \"tools/call\" && !mcp.tool.annotations.?readOnlyHint.orValue(false)");
	}

	@AfterEach
	void readOnlyAgain() {
		UPSTREAM.republish("secret_audit", true);
	}

	@AfterAll
	static void stop() throws Exception {
		UPSTREAM.close();
	}

	@Test
	void aToolThatTurnedDestructiveUnheardIsNeitherFoundNorListedOnceItsDefinitionIsTooOld() throws Exception {
		McpSession session = McpSession.open(new RawHttp(port), "searched");
		assertThat(search(session, 2, "secret audit")).as("read-only as published").contains("secret_audit")
			.doesNotContain("secret_admin");
		assertThat(listed(session, 4)).as("found, so listed").contains("secret_audit");

		UPSTREAM.republish("secret_audit", false); // its list_changed has no GET stream to go on
		long republished = System.nanoTime();
		Thread.sleep(Math.max(0, MAX_AGE.toMillis() - (System.nanoTime() - republished) / 1_000_000) + 1);
		UPSTREAM.clearSeen();

		assertThat(search(session, 5, "secret audit")).as("decided from the definition the server publishes now")
			.doesNotContain("secret_audit", "secret_admin");
		assertThat(UPSTREAM.seen()).as("listed again first")
			.anyMatch(seen -> seen.body().contains("\"tools/list\""));
		assertThat(listed(session, 6)).as("exposed, but no longer callable: not listed").doesNotContain("secret_audit")
			.contains("search_available_tools");
		JsonNode refused = last(session.post(RawHttp.toolsCall(7, "secret_audit")));
		assertThat(refused.path("error").path("message").asText()).as("%s", refused)
			.isEqualTo("Unknown tool: secret_audit");
		assertThat(UPSTREAM.seen()).as("the call never went upstream")
			.noneMatch(seen -> seen.body().contains("\"tools/call\""));
	}

	/** The names of the tools a search in {@code session} found. */
	private static List<String> search(McpSession session, int id, String query) {
		JsonNode result = last(session.post("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"search_available_tools\",\"arguments\":{\"query\":\"" + query + "\"}}}"));
		assertThat(result.has("result")).as(result.toString()).isTrue();
		return result.at("/result/structuredContent/tools").findValuesAsText("name");
	}

	/** The names of the tools {@code session}'s {@code tools/list} lists. */
	private static List<String> listed(McpSession session, int id) {
		JsonNode result = last(session.post("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\"}"));
		assertThat(result.has("result")).as(result.toString()).isTrue();
		return result.at("/result/tools").findValuesAsText("name");
	}

	private static JsonNode last(java.net.http.HttpResponse<String> response) {
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as(response.statusCode() + " " + response.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

}
