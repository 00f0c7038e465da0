package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Policies through the relay, two callers (API keys {@code bot} and {@code ops}) in front of the MCP Java SDK's servers
 * (one answering JSON, one SSE; tools {@code echo} and {@code secret_audit} annotated read-only, {@code secret_admin}
 * destructive, {@code whoami} with no annotations), and a virtual server of one of them: what a caller may not use is
 * left out of every list (tools, prompts, resources, templates; JSON and SSE; through the virtual server), a request
 * naming it is answered as one naming something that does not exist and never reaches the upstream, a rule on a call's
 * arguments lists the tool and decides each call, a virtual server's policy governs only what comes through it, and an
 * audit-mode policy refuses nothing and is counted.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyEnforcementTest {

	static final SdkMcpUpstream UPSTREAM = new SdkMcpUpstream();

	static final String BOT_KEY = "bot-key-7c1e5a9f3b2d4e6a8c0e";

	static final String OPS_KEY = "ops-key-2d4f6a8c0e1b3d5f7a9c";

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "api-key");
		registry.add("mcp-relay.security.api-keys[0].client", () -> "bot");
		registry.add("mcp-relay.security.api-keys[0].key-sha256", () -> dev.mcprelay.Sha256.hex(BOT_KEY));
		registry.add("mcp-relay.security.api-keys[0].servers[0]", () -> "*");
		registry.add("mcp-relay.security.api-keys[1].client", () -> "ops");
		registry.add("mcp-relay.security.api-keys[1].key-sha256", () -> dev.mcprelay.Sha256.hex(OPS_KEY));
		registry.add("mcp-relay.security.api-keys[1].servers[0]", () -> "*");
		registry.add("mcp-relay.servers.sdk.url", () -> UPSTREAM.url("/mcp"));
		registry.add("mcp-relay.servers.sdk.arguments.reserved-prefix", () -> "");
		registry.add("mcp-relay.servers.sdk-json.url", () -> UPSTREAM.url("/stateless"));
		registry.add("mcp-relay.servers.sdk-json.arguments.reserved-prefix", () -> "");
		registry.add("mcp-relay.virtual-servers.all.members[0]", () -> "sdk-json");
		registry.add("mcp-relay.servers.sdk-injects.url", () -> UPSTREAM.url("/stateless"));
		registry.add("mcp-relay.servers.sdk-injects.arguments.inject[0].name", () -> "message");
		registry.add("mcp-relay.servers.sdk-injects.arguments.inject[0].from-request-header", () -> "X-Message");
		policy(registry, 0, "read-only-for-bots", "sdk,sdk-json", "allow", "mcp.method != \"tools/call\" "
				+ "|| caller.client == \"ops\" || mcp.tool.annotations.?readOnlyHint.orValue(false)", true);
		policy(registry, 1, "no-prod-echo", "*", "deny",
				"mcp.tool.name == \"echo\" && mcp.arguments.?message.orValue(\"\") == \"prod\"", true);
		policy(registry, 2, "memo-not-for-bots", "sdk-json", "deny", "caller.client == \"bot\" "
				+ "&& (mcp.resource.uri.startsWith(\"memo://\") || mcp.prompt.name == \"greeting\")", true);
		policy(registry, 3, "not-through-all", "all", "deny", "mcp.tool.name == \"secret_audit\"", true);
		policy(registry, 4, "watch-whoami", "*", "deny", "mcp.tool.name == \"whoami\"", false);
	}

	private static void policy(DynamicPropertyRegistry registry, int index, String name, String servers, String kind,
			String expression, boolean enforce) {
		String at = "mcp-relay.policies[" + index + "].";
		registry.add(at + "name", () -> name);
		String[] ids = servers.split(",");
		for (int i = 0; i < ids.length; i++) {
			String id = ids[i];
			registry.add(at + "servers[" + i + "]", () -> id);
		}
		registry.add(at + kind, () -> expression);
		registry.add(at + "enforce", () -> String.valueOf(enforce));
	}

	@AfterAll
	static void stop() throws Exception {
		UPSTREAM.close();
	}

	@Test
	void whatACallerMayNotCallIsNotListedInJsonOrSse() {
		for (String server : List.of("sdk-json", "sdk")) {
			assertThat(toolNames(BOT_KEY, server)).as("bot on %s", server)
				.contains("echo", "secret_audit")
				.doesNotContain("secret_admin", "whoami");
			assertThat(toolNames(OPS_KEY, server)).as("ops on %s", server)
				.contains("echo", "secret_audit", "secret_admin", "whoami");
		}
	}

	@Test
	void aRefusedCallIsAnsweredAsAnUnknownToolAndNeverReachesTheUpstream() {
		UPSTREAM.clearSeen();
		int logMark = dev.mcprelay.testsupport.CapturedLogs.all().size();
		JsonNode refused = answer(BOT_KEY, "sdk-json", RawHttp.toolsCall(5, "secret_admin"));
		assertThat(refused.at("/error/code").asInt()).isEqualTo(-32602);
		assertThat(refused.at("/error/message").asText()).isEqualTo("Unknown tool: secret_admin");
		assertThat(refused.at("/error/data").isMissingNode()).as("nothing tells the client a policy refused it")
			.isTrue();
		assertThat(refused.at("/id").asInt()).isEqualTo(5);
		org.awaitility.Awaitility.await()
			.atMost(java.time.Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(dev.mcprelay.testsupport.CapturedLogs.since(logMark))
				.as("the access log names what the client is not told: the policy and why")
				.anyMatch(line -> line.startsWith("INFO mcp.relay.access server=sdk-json client=bot ")
						&& line.contains(" interceptor=policy ") && line.contains(" rule=read-only-for-bots ")
						&& line.contains(" reason=policy_denied ")));
		assertThat(UPSTREAM.seen()).noneMatch(seen -> seen.body().contains("secret_admin"));
		assertThat(answer(OPS_KEY, "sdk-json", RawHttp.toolsCall(6, "secret_admin")).has("result")).isTrue();
	}

	@Test
	void aRuleOnArgumentsListsTheToolAndDecidesEachCall() {
		UPSTREAM.clearSeen();
		assertThat(answer(BOT_KEY, "sdk-json", call(7, "echo", "hi")).has("result")).isTrue();
		assertThat(UPSTREAM.seen()).as("a call a rule read the arguments of (in place) goes upstream byte for byte")
			.anyMatch(seen -> seen.body().equals(call(7, "echo", "hi")));
		JsonNode prod = answer(BOT_KEY, "sdk-json", call(8, "echo", "prod"));
		assertThat(prod.at("/error/message").asText()).isEqualTo("Unknown tool: echo");
		assertThat(UPSTREAM.seen()).noneMatch(seen -> seen.body().contains("\"prod\""));
	}

	/**
	 * Review 43e F4: a rule on {@code mcp.arguments} decides on the arguments as they go upstream, those the relay
	 * injects ({@code arguments.inject}) included: {@code X-Message: prod} injects {@code message: "prod"}, which
	 * {@code no-prod-echo} refuses (it judged the client's value, and the injection replaced it after the decision).
	 */
	@Test
	void aRuleOnArgumentsDecidesTheInjectedValue() {
		UPSTREAM.clearSeen();
		JsonNode injectedProd = answer("sdk-injects", call(11, "echo", "hi"), "X-Message", "prod");
		assertThat(injectedProd.at("/error/message").asText()).as(injectedProd.toString())
			.isEqualTo("Unknown tool: echo");
		JsonNode injectedDev = answer("sdk-injects", call(12, "echo", "prod"), "X-Message", "dev");
		assertThat(injectedDev.at("/result/content/0/text").asText()).as(injectedDev.toString()).contains("dev")
			.doesNotContain("prod");
		assertThat(UPSTREAM.seen()).noneMatch(seen -> seen.body().contains("\"prod\""));
		assertThat(answer("sdk-injects", call(13, "echo", "prod")).at("/error/message").asText())
			.as("no header: the client's value is removed, nothing injected; the rule's default decides")
			.isNotEqualTo("Unknown tool: echo");
	}

	@Test
	void promptsAndResourcesAreHiddenAndRefusedAsWhatDoesNotExist() {
		JsonNode prompts = answer(BOT_KEY, "sdk-json", request(1, "prompts/list", "{}"));
		assertThat(prompts.at("/result/prompts").findValuesAsText("name")).doesNotContain("greeting");
		JsonNode resources = answer(BOT_KEY, "sdk-json", request(2, "resources/list", "{}"));
		assertThat(resources.at("/result/resources").findValuesAsText("uri")).doesNotContain("memo://one");
		JsonNode templates = answer(BOT_KEY, "sdk-json", request(3, "resources/templates/list", "{}"));
		assertThat(templates.at("/result/resourceTemplates").findValuesAsText("uriTemplate")).isEmpty();

		JsonNode prompt = answer(BOT_KEY, "sdk-json", request(4, "prompts/get", "{\"name\":\"greeting\"}"));
		assertThat(prompt.at("/error/code").asInt()).isEqualTo(-32602);
		JsonNode read = answer(BOT_KEY, "sdk-json", request(5, "resources/read", "{\"uri\":\"memo://one\"}"));
		assertThat(read.at("/error/code").asInt()).isEqualTo(-32002);
		assertThat(answer(OPS_KEY, "sdk-json", request(6, "resources/read", "{\"uri\":\"memo://one\"}")).has("result"))
			.isTrue();
	}

	@Test
	void aVirtualServersPolicyGovernsWhatComesThroughIt() {
		RawHttp bot = new RawHttp(port, "X-Api-Key", BOT_KEY);
		McpSession session = McpSession.open(bot, "all");
		List<String> viaAll = names(RawHttp.messagesOf(session.post(request(2, "tools/list", "{}"))), "tools");
		assertThat(viaAll).contains("sdk-json_echo").doesNotContain("sdk-json_secret_audit", "sdk-json_secret_admin");
		JsonNode refused = RawHttp.messagesOf(session.post(RawHttp.toolsCall(3, "sdk-json_secret_audit"))).get(0);
		assertThat(refused.at("/error/code").asInt()).isEqualTo(-32602);

		assertThat(toolNames(BOT_KEY, "sdk-json")).as("addressed directly").contains("secret_audit");
	}

	@Test
	void anAuditModePolicyRefusesNothingAndIsCounted() {
		double before = decisions("watch-whoami", "audited");
		JsonNode whoami = answer(OPS_KEY, "sdk-json", call(9, "whoami", "hi"));
		assertThat(whoami.has("result")).as(whoami.toString()).isTrue();
		assertThat(decisions("watch-whoami", "audited") - before).isEqualTo(1);
		assertThat(decisions("read-only-for-bots", "hidden")).isPositive();
	}

	private double decisions(String policy, String outcome) {
		return registry.find(PolicyMeters.DECISIONS).tag("policy", policy).tag("outcome", outcome).counters().stream()
			.mapToDouble(counter -> counter.count())
			.sum();
	}

	private List<String> toolNames(String key, String server) {
		RawHttp http = new RawHttp(port, "X-Api-Key", key);
		McpSession session = McpSession.open(http, server);
		return names(RawHttp.messagesOf(session.post(request(1, "tools/list", "{}"))), "tools");
	}

	private static List<String> names(List<JsonNode> messages, String list) {
		List<String> names = new ArrayList<>();
		messages.forEach(message -> message.at("/result/" + list).forEach(entry -> names.add(entry.path("name").asText())));
		return names;
	}

	private JsonNode answer(String key, String server, String body) {
		RawHttp http = new RawHttp(port, "X-Api-Key", key);
		HttpResponse<String> response = http.send(http.post(server, body));
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as(response.statusCode() + " " + response.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

	/** The answer to {@code bot}'s {@code body} sent with {@code headers} (name, value, ...) too. */
	private JsonNode answer(String server, String body, String... headers) {
		String[] all = new String[headers.length + 2];
		all[0] = "X-Api-Key";
		all[1] = BOT_KEY;
		System.arraycopy(headers, 0, all, 2, headers.length);
		RawHttp http = new RawHttp(port, all);
		HttpResponse<String> response = http.send(http.post(server, body));
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as(response.statusCode() + " " + response.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

	private static String call(int id, String tool, String message) {
		return request(id, "tools/call", "{\"name\":\"" + tool + "\",\"arguments\":{\"message\":\"" + message + "\"}}");
	}

	private static String request(int id, String method, String params) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + params + "}";
	}

}
