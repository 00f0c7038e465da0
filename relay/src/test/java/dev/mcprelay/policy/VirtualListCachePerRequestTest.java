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

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScopedTokens;
import dev.mcprelay.testsupport.TestAuthorizationServer;

/**
 * What a virtual server keeps of its members' pages for clients without sessions (MCP 2026-07-28) and routes names by
 * never decides one request by another's policies: one subject holds a token with scope {@code tools:write} (W) and
 * one without (R), the policy {@code writers} hides {@code delete_file} (destructive) from R, and the caller, so its
 * view of the member, is the same for both. Whichever token lists or calls first, R is never listed
 * {@code delete_file}, W always is, and W's call of it is routed to the member while R's is refused: what is listed
 * is what may be called, for every request (issue 43: the kept pages were the first token's filtered pages). A name
 * two members publish is routed to the one that lists it to the request.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualListCachePerRequestTest {

	static final TestAuthorizationServer AUTH = new TestAuthorizationServer();

	static final PolicyTestServer SERVER = new PolicyTestServer();

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		ScopedTokens.register(registry, AUTH, 0);
		registry.add("mcp-relay.servers.files.url", () -> SERVER.url("/mcp"));
		registry.add("mcp-relay.servers.mirror.url", () -> SERVER.url("/mcp"));
		// one virtual server per test, so that each test's order is the first to reach its kept pages
		for (String virtual : List.of("wfirst", "rfirst")) {
			registry.add("mcp-relay.virtual-servers." + virtual + ".members[0]", () -> "files");
			registry.add("mcp-relay.virtual-servers." + virtual + ".tool-prefix", () -> "f_");
		}
		// files never offers write_file, mirror does: a name both publish is routed to the member that lists it
		registry.add("mcp-relay.policies[1].name", () -> "files-never-writes");
		registry.add("mcp-relay.policies[1].servers[0]", () -> "files");
		registry.add("mcp-relay.policies[1].deny", () -> "mcp.tool.name == \"write_file\"");
		// two members without a prefix: a name is routed by the members' lists (PublishedNames)
		for (String virtual : List.of("wroute", "rroute")) {
			registry.add("mcp-relay.virtual-servers." + virtual + ".members[0]", () -> "files");
			registry.add("mcp-relay.virtual-servers." + virtual + ".members[1]", () -> "mirror");
			registry.add("mcp-relay.virtual-servers." + virtual + ".tool-prefix", () -> "");
		}
	}

	@AfterAll
	static void stop() throws Exception {
		AUTH.close();
		SERVER.close();
	}

	@Test
	void theWriteScopedTokenListingFirstShowsTheReadOnlyOneNothingItMayNotCall() {
		assertThat(tools("wfirst", ScopedTokens.WRITE)).as("W's list").contains("f_delete_file", "f_read_file");
		assertThat(tools("wfirst", ScopedTokens.READ)).as("R's list after W's").contains("f_read_file")
			.doesNotContain("f_delete_file");
		assertThat(call("wfirst", ScopedTokens.READ, "f_delete_file").has("error")).as("R's call").isTrue();
	}

	@Test
	void theReadOnlyTokenListingFirstHidesNothingFromTheWriteScopedOne() {
		assertThat(tools("rfirst", ScopedTokens.READ)).as("R's list").contains("f_read_file")
			.doesNotContain("f_delete_file");
		assertThat(tools("rfirst", ScopedTokens.WRITE)).as("W's list after R's").contains("f_delete_file");
		JsonNode call = call("rfirst", ScopedTokens.WRITE, "f_delete_file");
		assertThat(call.has("result")).as(call.toString()).isTrue();
	}

	@Test
	void theWriteScopedTokenRoutingFirstListsTheReadOnlyOneNothingItMayNotCall() {
		JsonNode written = call("wroute", ScopedTokens.WRITE, "delete_file");
		assertThat(written.has("result")).as(written.toString()).isTrue();
		assertThat(call("wroute", ScopedTokens.READ, "delete_file").has("error")).as("R's call after W's").isTrue();
		assertThat(tools("wroute", ScopedTokens.READ)).as("R's list after W's call").contains("read_file")
			.doesNotContain("delete_file");
		// listed through mirror only (files hides it): called through mirror, never refused by files
		assertThat(tools("wroute", ScopedTokens.WRITE)).as("W's list").contains("write_file");
		JsonNode mirrored = call("wroute", ScopedTokens.WRITE, "write_file");
		assertThat(mirrored.has("result")).as("W's call of write_file: " + mirrored).isTrue();
	}

	@Test
	void theReadOnlyTokenRoutingFirstNeverRefusesTheWriteScopedOneWhatItMayCall() {
		assertThat(call("rroute", ScopedTokens.READ, "delete_file").has("error")).as("R's call").isTrue();
		JsonNode written = call("rroute", ScopedTokens.WRITE, "delete_file");
		assertThat(written.has("result")).as("W's call after R's: " + written).isTrue();
		assertThat(tools("rroute", ScopedTokens.WRITE)).as("W's list after R's call").contains("delete_file");
	}

	/** The tools a 2026-07-28 request (no session) with a token of {@code scope} lists through {@code virtual}. */
	private List<String> tools(String virtual, String scope) {
		JsonNode answer = answer(virtual, scope, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":"
				+ "{\"_meta\":" + META + "}}");
		assertThat(answer.has("result")).as(answer.toString()).isTrue();
		return answer.at("/result/tools").findValuesAsText("name");
	}

	/** The answer to a 2026-07-28 call of {@code tool} with a token of {@code scope} through {@code virtual}. */
	private JsonNode call(String virtual, String scope, String tool) {
		return answer(virtual, scope, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\""
				+ tool + "\",\"arguments\":{\"path\":\"a\"},\"_meta\":" + META + "}}");
	}

	private static final String META = "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}";

	private JsonNode answer(String virtual, String scope, String body) {
		RawHttp http = ScopedTokens.http(port, AUTH, "alice", scope);
		List<JsonNode> messages = RawHttp.messagesOf(http.send(http.post(virtual, body)));
		return messages.get(messages.size() - 1);
	}

}
