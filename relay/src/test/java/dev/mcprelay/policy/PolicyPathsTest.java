package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.AfterAll;
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
 * One decision on every path, as an attacker would check it: a policy set drawn from a seed (printed; replay with
 * {@code -Dpolicies.seed}) over three callers and the SDK server's tools, and for each caller the tools it sees and
 * may call, compared with what the drawn policies say, on every path a tool is listed or used: a server answering
 * JSON, one answering SSE, tool search's lists and results, a virtual server's merged list, and requests that name
 * the tool in MCP 2026-07-28's {@code Mcp-Name} header. Spellings of a tool a caller may not use (case, spaces, a
 * zero-width space, a look-alike letter, the virtual server's prefix) never reach the upstream, nor does a refused
 * call over the body size cap.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyPathsTest {

	static final SdkMcpUpstream UPSTREAM = new SdkMcpUpstream();

	static final List<String> TOOLS = List.of("echo", "secret_admin", "secret_audit", "whoami");

	/** The tools annotated read-only by the SDK test server. */
	static final Set<String> READ_ONLY = Set.of("echo", "secret_audit");

	static final List<String> CALLERS = List.of("alpha", "beta", "gamma");

	static final long SEED = Long.getLong("policies.seed", System.nanoTime());

	/** What the drawn policies let each caller use: the oracle. */
	static final Map<String, Set<String>> MAY_USE = new LinkedHashMap<>();

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "api-key");
		for (int i = 0; i < CALLERS.size(); i++) {
			String caller = CALLERS.get(i);
			registry.add("mcp-relay.security.api-keys[" + i + "].client", () -> caller);
			registry.add("mcp-relay.security.api-keys[" + i + "].key-sha256", () -> dev.mcprelay.Sha256.hex(key(caller)));
			registry.add("mcp-relay.security.api-keys[" + i + "].servers[0]", () -> "*");
		}
		for (String id : List.of("json", "sse", "search")) {
			registry.add("mcp-relay.servers." + id + ".url", () -> UPSTREAM.url(id.equals("json") ? "/stateless" : "/mcp"));
			registry.add("mcp-relay.servers." + id + ".arguments.reserved-prefix", () -> "");
			registry.add("mcp-relay.servers." + id + ".max-buffered-body", () -> "64KB");
		}
		registry.add("mcp-relay.servers.search.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.search.tool-search.max-results", () -> "10");
		registry.add("mcp-relay.virtual-servers.all.members[0]", () -> "json");
		registry.add("mcp-relay.virtual-servers.all.tool-prefix", () -> "v_");
		Random random = new Random(SEED);
		int index = 0;
		for (String caller : CALLERS) {
			Set<String> usable = new TreeSet<>(caller.equals("gamma") ? READ_ONLY : TOOLS);
			for (String tool : TOOLS) {
				if (random.nextInt(3) == 0) {
					usable.remove(tool);
					String at = "mcp-relay.policies[" + index++ + "].";
					registry.add(at + "name", () -> caller + "-no-" + tool);
					registry.add(at + "servers[0]", () -> "*");
					registry.add(at + "deny", () -> "caller.client == \"" + caller + "\" && mcp.tool.name == \"" + tool + "\"");
				}
			}
			MAY_USE.put(caller, usable);
		}
		String at = "mcp-relay.policies[" + index + "].";
		registry.add(at + "name", () -> "gamma-reads-only");
		registry.add(at + "servers[0]", () -> "*");
		registry.add(at + "allow", () -> "caller.client != \"gamma\" || mcp.method != \"tools/call\" "
				+ "|| mcp.tool.annotations.?readOnlyHint.orValue(false)");
	}

	@AfterAll
	static void stop() throws Exception {
		UPSTREAM.close();
	}

	@Test
	void everyPathListsWhatTheCallerMayCallAndNothingElse() {
		for (String caller : CALLERS) {
			Set<String> expected = MAY_USE.get(caller);
			String seed = "seed " + SEED + ", caller " + caller;
			assertThat(listed(caller, "json", "")).as(seed + ", JSON").isEqualTo(expected);
			assertThat(listed(caller, "sse", "")).as(seed + ", SSE").isEqualTo(expected);
			assertThat(listed(caller, "all", "v_")).as(seed + ", virtual server").isEqualTo(expected);
			assertThat(searched(caller)).as(seed + ", tool search").isEqualTo(expected);

			UPSTREAM.clearSeen();
			Set<String> callable = new TreeSet<>();
			for (String tool : TOOLS) {
				if (answered(caller, "json", tool, false) & answered(caller, "json", tool, true)
						& answered(caller, "sse", tool, false)) {
					callable.add(tool);
				}
			}
			assertThat(callable).as(seed + ", calls (JSON, SSE, Mcp-Name)").isEqualTo(expected);
			Set<String> reached = new TreeSet<>();
			UPSTREAM.seen().forEach(seen -> TOOLS.stream().filter(tool -> seen.body().contains("\"" + tool + "\""))
				.forEach(reached::add));
			assertThat(reached).as(seed + ", what reached the upstream").isSubsetOf(expected);
		}
	}

	@Test
	void spellingsOfAToolACallerMayNotUseNeverReachTheUpstream() {
		UPSTREAM.clearSeen();
		for (String spelling : List.of("Secret_Admin", "SECRET_ADMIN", " secret_admin", "secret_admin ",
				"secret\u200badmin", "\u0455ecret_admin", "v_secret_admin", "secret_admin\u0000")) {
			JsonNode refused = call("gamma", "json", spelling, false);
			assertThat(refused.at("/error/code").asInt()).as("%s: %s", spelling, refused).isEqualTo(-32602);
		}
		String padded = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"secret_admin\","
				+ "\"arguments\":{\"message\":\"" + "x".repeat(70_000) + "\"}}}";
		RawHttp gamma = http("gamma");
		assertThat(gamma.send(gamma.post("json", padded)).statusCode()).as("over the cap").isEqualTo(413);
		assertThat(UPSTREAM.seen()).as("nothing of gamma's reached the upstream")
			.noneMatch(seen -> seen.body().contains("tools/call"));
	}

	private Set<String> listed(String caller, String server, String prefix) {
		McpSession session = McpSession.open(http(caller), server);
		Set<String> names = new TreeSet<>();
		RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"))
			.forEach(message -> message.at("/result/tools").forEach(tool -> {
				String name = tool.path("name").asText();
				if (name.startsWith(prefix) && TOOLS.contains(name.substring(prefix.length()))) {
					names.add(name.substring(prefix.length()));
				}
			}));
		return names;
	}

	private Set<String> searched(String caller) {
		McpSession session = McpSession.open(http(caller), "search");
		HttpResponse<String> found = session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"search_available_tools\",\"arguments\":{\"query\":\"tool echo secret admin audit whoami "
				+ "answers arguments\",\"limit\":10}}}");
		List<JsonNode> messages = RawHttp.messagesOf(found);
		Set<String> names = new TreeSet<>();
		messages.get(messages.size() - 1).at("/result/structuredContent/tools").forEach(tool -> {
			String name = tool.path("name").asText();
			if (TOOLS.contains(name)) {
				names.add(name);
			}
		});
		Set<String> exposed = new TreeSet<>();
		RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}"))
			.forEach(message -> message.at("/result/tools").forEach(tool -> {
				if (TOOLS.contains(tool.path("name").asText())) {
					exposed.add(tool.path("name").asText());
				}
			}));
		assertThat(exposed).as("what the search exposed is what it found").isEqualTo(names);
		return names;
	}

	/** Whether a call of {@code tool} was answered by the server rather than refused as an unknown tool. */
	private boolean answered(String caller, String server, String tool, boolean mcpName) {
		JsonNode answer = call(caller, server, tool, mcpName);
		return !(answer.at("/error/code").asInt() == -32602
				&& answer.at("/error/message").asText().equals("Unknown tool: " + tool));
	}

	private JsonNode call(String caller, String server, String tool, boolean mcpName) {
		RawHttp http = http(caller);
		String body = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":"
				+ dev.mcprelay.jsonrpc.JsonRpcParser.mapper().valueToTree(tool) + ",\"arguments\":{\"message\":\"hi\"}}}";
		var request = server.equals("json") ? http.post(server, body)
				: McpSession.open(http, server).request(body);
		if (mcpName) {
			request.header("Mcp-Method", "tools/call").header("Mcp-Name", tool);
		}
		HttpResponse<String> response = http.send(request);
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as(response.statusCode() + " " + response.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

	private RawHttp http(String caller) {
		return new RawHttp(port, "X-Api-Key", key(caller));
	}

	private static String key(String caller) {
		return caller + "-key-5e1a9c3f7b2d4e6a";
	}

}
