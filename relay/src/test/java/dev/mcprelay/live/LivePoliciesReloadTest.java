package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.chain.Stage;
import dev.mcprelay.intercept.InterceptorChains;
import dev.mcprelay.intercept.ResponseInterception;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * Policies and each server's tool lists are reloaded while the relay runs, in front of real MCP servers (the SDK's):
 * an edit decides from the next request (also in a session opened before it), a request in flight finishes as it
 * began, a server added beside the policies is governed by them from its first request, and an invalid edit of them
 * is refused whole with the old ones still deciding.
 */
class LivePoliciesReloadTest {

	static SdkMcpUpstream upstream;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config(""))
		.peer(() -> upstream = new SdkMcpUpstream());

	@BeforeEach
	void noRequestSeenYet() {
		upstream.clearSeen();
	}

	@Test
	void aToolListAddedToARunningServerHidesAndRefusesTheToolFromTheNextRequestOfASessionOpenedBefore() throws Exception {
		McpSession session = McpSession.open(live.http(), "alpha");
		assertThat(toolNames(session)).contains("secret_admin", "echo");

		live.reload(config("").replace("url: " + upstream.url("/mcp"),
				"url: " + upstream.url("/mcp") + "\n      tools:\n        deny: [secret_admin]"), ReloadOutcome.APPLIED);

		assertThat(toolNames(session)).as("listed no more").contains("echo").doesNotContain("secret_admin");
		JsonNode refused = RawHttp.messagesOf(session.post(RawHttp.toolsCall(3, "secret_admin"))).get(0);
		assertThat(refused.at("/error/message").asText()).isEqualTo("Unknown tool: secret_admin");
		assertThat(RawHttp.messagesOf(session.post(RawHttp.toolsCall(4, "echo"))).get(0).has("result")).isTrue();
	}

	@Test
	void aPolicyAddedGovernsAServerAddedInTheSameReloadFromItsFirstRequest() throws Exception {
		live.reload(config(DENY_ADMIN, "beta"), ReloadOutcome.APPLIED);

		McpSession beta = McpSession.open(live.http(), "beta");
		assertThat(toolNames(beta)).as("the added server's list").contains("echo").doesNotContain("secret_admin");
		JsonNode refused = RawHttp.messagesOf(beta.post(RawHttp.toolsCall(5, "secret_admin"))).get(0);
		assertThat(refused.at("/error/message").asText()).isEqualTo("Unknown tool: secret_admin");
		assertThat(upstream.seen()).as("the refused call never reached the upstream")
			.noneMatch(seen -> seen.body().contains("\"secret_admin\"") && seen.body().contains("tools/call"));
	}

	@Test
	void aCallInFlightFinishesAsItBeganAndTheNextOneIsDecidedByTheNewPolicy() throws Exception {
		McpSession session = McpSession.open(live.http(), "alpha");
		upstream.resetProgressGate();
		HttpResponse<InputStream> call = live.http().open(session.request("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"progress\",\"arguments\":{},\"_meta\":{\"progressToken\":\"p-8\"}}}"));
		assertThat(call.statusCode()).isEqualTo(200);

		live.reload(config(DENY_PROGRESS), ReloadOutcome.APPLIED);
		upstream.releaseProgress();

		List<JsonNode> events = RawHttp.sseData(RawHttp.readAll(call.body()));
		assertThat(events).as("the call that began before the policy is answered by the tool: %s", events).last()
			.satisfies(answer -> assertThat(answer.has("result")).as(answer.toString()).isTrue());
		JsonNode next = RawHttp.messagesOf(session.post(RawHttp.toolsCall(9, "progress"))).get(0);
		assertThat(next.at("/error/message").asText()).as("the next call of the same session")
			.isEqualTo("Unknown tool: progress");
	}

	@Test
	void anInvalidPolicyEditIsRefusedWholeAndTheRunningPoliciesStillDecide() throws Exception {
		live.reload(config(DENY_ADMIN), ReloadOutcome.APPLIED);
		String running = live.relay().checksum();

		live.reload(config(DENY_ADMIN.replace("secret_admin\"", "echo\"")
				+ "    - name: broken\n      servers: [\"*\"]\n      deny: 'mcp.tool.name ==== 1'\n", "beta"),
				ReloadOutcome.REFUSED);

		assertThat(live.relay().checksum()).as("the running configuration stays").isEqualTo(running);
		McpSession session = McpSession.open(live.http(), "alpha");
		assertThat(toolNames(session)).as("the running policy still decides, the refused one does not")
			.contains("echo").doesNotContain("secret_admin");
		assertThat(live.http().send(live.http().post("beta", McpSession.initialize(1))).statusCode())
			.as("nothing of the refused reload applies").isEqualTo(404);
	}

	@Test
	void aServerNoPolicyGovernsHasEmptyChainsAndAPolicyAReloadAddsJoinsItsChainsFromItsNextRequest() throws Exception {
		InterceptorChains chains = live.relay().context().getBean(InterceptorChains.class);
		ResponseInterception responses = live.relay().context().getBean(ResponseInterception.class);
		ConfigurationSnapshot ungoverned = live.relay().current();
		for (Stage<?> stage : Stage.ALL) {
			assertThat(chains.chain(stage, ungoverned, "alpha").names()).as("nothing governs alpha at %s", stage)
				.doesNotContain("policy", "rate-limit", "tool-search");
		}
		assertThat(chains.chain(Stage.SERVER_NOTIFICATION, ungoverned, "alpha").isEmpty()).isTrue();
		assertThat(responses.relaysNotificationsUntouched(ungoverned, "alpha")).as("its notifications take the fast path")
			.isTrue();

		live.reload(config(DENY_ADMIN), ReloadOutcome.APPLIED);

		ConfigurationSnapshot governed = live.relay().current();
		assertThat(chains.chain(Stage.TOOLS_CALL_REQUEST, governed, "alpha").names()).contains("policy");
		assertThat(chains.chain(Stage.SERVER_NOTIFICATION, governed, "alpha").isEmpty())
			.as("a rule reading the tool keeps its catalogue, which the relay's own watch of list_changed makes it "
					+ "forget: the policy does not hear notifications where it hides no resource")
			.isTrue();
		assertThat(chains.chain(Stage.TOOLS_LIST_REQUEST, governed, "alpha").names())
			.as("it notes the lists sent, to keep their answers").containsExactly("policy");
		assertThat(chains.chain(Stage.TOOLS_CALL_REQUEST, ungoverned, "alpha").names())
			.as("a request on the earlier snapshot keeps its chains").doesNotContain("policy");
		McpSession session = McpSession.open(live.http(), "alpha");
		assertThat(RawHttp.messagesOf(session.post(RawHttp.toolsCall(3, "secret_admin"))).get(0)
			.at("/error/message").asText()).isEqualTo("Unknown tool: secret_admin");

		live.reload(config(NO_PROMPTS), ReloadOutcome.APPLIED);

		ConfigurationSnapshot methodOnly = live.relay().current();
		assertThat(chains.chain(Stage.PROMPTS_GET_REQUEST, methodOnly, "alpha").names()).contains("policy");
		assertThat(chains.chain(Stage.SERVER_NOTIFICATION, methodOnly, "alpha").isEmpty())
			.as("no rule reads a tool, a prompt, or can hide a resource: the policy does not hear notifications").isTrue();
		assertThat(responses.relaysNotificationsUntouched(methodOnly, "alpha")).isTrue();
	}

	private static final String NO_PROMPTS = "  policies:\n    - name: no-prompts\n      servers: [alpha]\n"
			+ "      deny: 'mcp.method == \"prompts/get\"'\n";

	private static final String DENY_ADMIN = "  policies:\n    - name: no-admin\n      servers: [\"*\"]\n"
			+ "      deny: 'mcp.tool.name == \"secret_admin\"'\n";

	private static final String DENY_PROGRESS = "  policies:\n    - name: no-progress\n      servers: [alpha]\n"
			+ "      deny: 'mcp.tool.name == \"progress\"'\n";

	private static List<String> toolNames(McpSession session) {
		JsonNode list = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}")).get(0);
		return list.at("/result/tools").findValuesAsText("name");
	}

	/** alpha (the SDK's Streamable HTTP server) and these other servers (the stateless one), then {@code policies}. */
	static String config(String policies, String... others) {
		StringBuilder yaml = new StringBuilder("server:\n  port: 0\n  address: 127.0.0.1\n"
				+ "mcp-relay:\n  security:\n    mode: none\n  servers:\n    alpha:\n      url: ")
			.append(upstream.url("/mcp")).append('\n');
		for (String server : others) {
			yaml.append("    ").append(server).append(":\n      url: ").append(upstream.url("/stateless")).append('\n');
		}
		return yaml.append(policies).toString();
	}

}
