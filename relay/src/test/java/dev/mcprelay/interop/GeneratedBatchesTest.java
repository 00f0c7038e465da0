package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.McpResponse;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.ResponseInterceptor;
import dev.mcprelay.api.ToolsCallResponse;
import dev.mcprelay.api.ToolsCallResponseInterceptor;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.api.ToolsListResponseInterceptor;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import reactor.core.publisher.Mono;

/**
 * Generated bodies, against two real servers: a generic JSON-RPC server on Node that parses with JSON.parse (rounding
 * ids past 2^53), takes batches and executes notifications ({@code interop/json-rpc-server.mjs}), and the MCP Java
 * SDK's Streamable HTTP server. Each body is a batch or a single message of random requests (tools/list, tools/call of
 * offered, denied and unknown tools with and without reserved arguments, ping), notifications naming request methods,
 * answers with ids no server request had, under random ids (small integers, integers past 2^53, pairs of them that a
 * double cannot tell apart, strings, ids shared within the batch). The Node server also answers some calls twice,
 * under an id nobody sent (a stray), and answers the requests marked {@code _meta.resume} later: their POST's stream
 * ends without them and they come on the session's GET stream, as on a stream resumed with {@code Last-Event-ID}
 * (strays of those too). Whatever the bodies, the relay keeps its promises: no denied tool is ever listed or called
 * (nor a reserved argument sent); every result that reaches the client met its response stage (each stage's
 * interceptor marks what it saw); an answer reaches the client only under an id the client sent, once; and on the Node
 * server every request the relay did not refuse is answered exactly once, on its POST or, when answered later, on the
 * GET stream. The seed is in every failure's description; {@code -Dgenerated.seed=N} replays it. Two findings of issue
 * 39 are checked on the Node server by name as well: an id it rounds, and a {@code tools/call} sent as a notification.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(GeneratedBatchesTest.Markers.class)
class GeneratedBatchesTest {

	private static final int BODIES = 150;

	private static final String MARK = "checked";

	private static NodePeers.NodeServer node;

	private static final SdkMcpUpstream SDK = new SdkMcpUpstream();

	@LocalServerPort
	int port;

	/** Each response stage marks what it saw; the tools/call stage also replaces the tool's output. */
	@TestConfiguration(proxyBeanMethods = false)
	static class Markers {

		@Bean
		ToolsCallResponseInterceptor toolResultMarker() {
			return new ToolsCallResponseInterceptor() {

				@Override
				public String name() {
					return "tool-result-marker";
				}

				@Override
				public Mono<Outcome> interceptToolsCallResponse(ToolsCallResponse response) {
					response.replaceResult(Map.of("content", List.of(Map.of("type", "text", "text", "[redacted]")),
							MARK, "tools/call"));
					return Outcome.proceed();
				}

			};
		}

		@Bean
		ToolsListResponseInterceptor toolListMarker() {
			return new ToolsListResponseInterceptor() {

				@Override
				public String name() {
					return "tool-list-marker";
				}

				@Override
				public Mono<Outcome> interceptToolsListResponse(ToolsListResponse response) {
					ObjectNode result = response.result();
					result.put(MARK, "tools/list");
					response.replaceResult(result);
					return Outcome.proceed();
				}

			};
		}

		@Bean
		ResponseInterceptor otherResultMarker() {
			return new ResponseInterceptor() {

				@Override
				public String name() {
					return "other-result-marker";
				}

				@Override
				public Mono<Outcome> interceptResponse(McpResponse response) {
					ObjectNode result = response.result();
					if (result != null) {
						// an answer on a GET stream whose request is not known meets this stage with no method
						result.put(MARK, response.method() == null ? "unknown" : response.method());
						response.replaceResult(result);
					}
					return Outcome.proceed();
				}

			};
		}

	}

	@BeforeAll
	static void startNodeServer() throws Exception {
		NodePeers.requireNode();
		node = NodePeers.startServer("json-rpc-server.mjs");
	}

	@AfterAll
	static void stopServers() throws Exception {
		if (node != null) {
			node.close();
		}
		SDK.close();
	}

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.node.url", () -> node.url());
		registry.add("mcp-relay.servers.node.tools.deny[0]", () -> "secret_*");
		registry.add("mcp-relay.servers.sdk.url", () -> SDK.url("/mcp"));
		registry.add("mcp-relay.servers.sdk.tools.deny[0]", () -> "secret_*");
	}

	@Test
	void noDeniedToolIsListedOrCalledAndEveryResultMetItsStageOnAJsonParseServer() {
		long seed = Long.getLong("generated.seed", System.nanoTime());
		Random random = new Random(seed);
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "node");
		nodeCalls("DELETE");

		for (int i = 0; i < BODIES; i++) {
			Body body = body(random, true);
			String where = "seed " + seed + ", body " + body.json();
			HttpResponse<String> response = session.post(body.json());
			assertKeptItsPromises(response, where);
			List<String> later = assertAnsweredOnce(response, body, true, where);
			if (!later.isEmpty() || random.nextInt(4) == 0) {
				HttpResponse<String> resumed = http.send(http.request("node")
					.header("Accept", "text/event-stream")
					.header("Mcp-Session-Id", session.id())
					.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
					.header("Last-Event-ID", "e-0")
					.GET());
				assertKeptItsPromises(resumed, where + ", on the GET stream after it");
				assertAnsweredLater(resumed, later, body.resumed(), where);
			}
		}

		assertNoDeniedCall(nodeCalls("GET"), "seed " + seed);
	}

	@Test
	void noDeniedToolIsListedOrCalledAndEveryResultMetItsStageOnTheSdkServer() {
		long seed = Long.getLong("generated.seed", System.nanoTime());
		Random random = new Random(seed);
		McpSession session = McpSession.open(new RawHttp(port), "sdk");
		SDK.clearSeen();

		for (int i = 0; i < BODIES; i++) {
			Body body = body(random, false);
			String where = "seed " + seed + ", body " + body.json();
			HttpResponse<String> response = session.post(body.json());
			assertKeptItsPromises(response, where);
			assertAnsweredOnce(response, body, false, where);
		}

		List<JsonNode> calls = new ArrayList<>();
		SDK.seen().stream().filter(seen -> seen.method().equals("POST")).forEach(seen -> {
			JsonNode json = seen.json();
			(json.isArray() ? json : List.of(json)).forEach(message -> {
				if ("tools/call".equals(message.path("method").asText())) {
					ObjectNode call = ((ObjectNode) message.path("params").deepCopy());
					call.put("notification", !message.has("id"));
					call.set("arguments", message.path("params").path("arguments"));
					calls.add(call);
				}
			});
		});
		assertNoDeniedCall(calls, "seed " + seed);
	}

	@Test
	void anIdTheJsonParseServerRoundsIsAnsweredUnderTheClientsIdAfterItsStage() {
		RawHttp http = new RawHttp(port);

		HttpResponse<String> response = http.send(http.post("node", RawHttp.toolsCall(9007199254740993L, "echo")));

		JsonNode answer = RawHttp.json(response.body());
		assertThat(answer.get("id").asLong()).as("the server answered 9007199254740992; the client gets its own id")
			.isEqualTo(9007199254740993L);
		assertThat(answer.at("/result/" + MARK).asText()).isEqualTo("tools/call");
		assertThat(response.body()).doesNotContain("the secret");
	}

	@Test
	void aToolsCallNotificationNeverReachesTheJsonRpcServer() {
		RawHttp http = new RawHttp(port);
		nodeCalls("DELETE");

		HttpResponse<String> response = http.send(http.post("node", "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"secret_admin\",\"arguments\":{\"_tenant\":\"other\"}}}"));

		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(nodeCalls("GET")).as("the server executes what it gets, notification or not").isEmpty();
	}

	private static void assertKeptItsPromises(HttpResponse<String> response, String where) {
		for (JsonNode message : RawHttp.messagesOf(response)) {
			JsonNode result = message.get("result");
			if (result == null) {
				assertThat(message.toString()).as("an error leaks no tool output: %s", where)
					.doesNotContain("the secret");
				continue;
			}
			assertThat(result.path(MARK).isTextual()).as("every result met a response stage: %s in %s", message, where)
				.isTrue();
			if (result.has("tools")) {
				assertThat(result.path(MARK).asText()).as("a tool list met the tools/list stage: %s", where)
					.isEqualTo("tools/list");
				assertThat(result.get("tools").findValuesAsText("name")).as("no denied tool listed: %s", where)
					.noneMatch(name -> name.startsWith("secret_"));
				assertThat(result.get("tools").toString()).as("no reserved argument listed: %s", where)
					.doesNotContain("_tenant");
			}
			if (result.has("content")) {
				assertThat(result.path(MARK).asText()).as("a tool result met the tools/call stage: %s", where)
					.isEqualTo("tools/call");
			}
			assertThat(message.toString()).as("no tool output unredacted: %s", where).doesNotContain("the secret");
		}
	}

	/**
	 * Every answer of a POST is under an id of a request the client sent in it, at most once; with {@code exactly},
	 * every request the relay did not refuse whole is answered, on the POST or (marked resume, to a server that
	 * answers it later) on the GET stream after it.
	 *
	 * @return the ids of the requests whose answers come later
	 */
	private static List<String> assertAnsweredOnce(HttpResponse<String> response, Body body, boolean exactly,
			String where) {
		List<String> answered = RawHttp.messagesOf(response).stream()
			.filter(message -> !message.has("method") && message.hasNonNull("id"))
			.map(message -> message.get("id").toString())
			.toList();
		// a batch the relay refuses whole (shared or rounding ids) is one error without id: none of it went upstream
		boolean refusedWhole = response.statusCode() == 400 && answered.isEmpty();
		List<String> sent = refusedWhole ? List.of() : body.requestIds();
		assertThat(answered).as("answers only under ids the client sent, once each: %s", where)
			.doesNotHaveDuplicates()
			.allMatch(sent::contains);
		List<String> later = refusedWhole ? List.of()
				: body.resumed().keySet().stream().filter(id -> !answered.contains(id)).toList();
		if (exactly) {
			List<String> now = sent.stream().filter(id -> !later.contains(id)).toList();
			assertThat(answered).as("every request answered on its POST, or later: %s", where)
				.containsExactlyInAnyOrderElementsOf(now);
		}
		return later;
	}

	/**
	 * Each request answered later is answered on the GET stream, once, under the id the client sent, after the
	 * response stage of its own method (the relay kept the request its POST's stream left unanswered).
	 */
	private static void assertAnsweredLater(HttpResponse<String> resumed, List<String> later,
			Map<String, String> methods, String where) {
		List<JsonNode> answers = RawHttp.messagesOf(resumed).stream()
			.filter(message -> !message.has("method") && later.contains(message.path("id").toString()))
			.toList();
		assertThat(answers).extracting(answer -> answer.get("id").toString())
			.as("each request answered later gets its answer once, on the GET stream: %s", where)
			.containsExactlyInAnyOrderElementsOf(later);
		for (JsonNode answer : answers) {
			if (answer.has("result")) {
				assertThat(answer.at("/result/" + MARK).asText()).as("%s met its request's stage: %s", answer, where)
					.isEqualTo(methods.get(answer.get("id").toString()));
			}
		}
	}

	private static void assertNoDeniedCall(List<JsonNode> calls, String where) {
		assertThat(calls).as("the upstream executed calls (%s)", where).isNotEmpty();
		for (JsonNode call : calls) {
			assertThat(call.path("name").asText()).as("no denied tool called: %s (%s)", call, where)
				.doesNotStartWith("secret_");
			assertThat(call.path("notification").asBoolean()).as("no call as a notification: %s (%s)", call, where)
				.isFalse();
			call.path("arguments").fieldNames().forEachRemaining(key -> assertThat(key)
				.as("no reserved argument sent: %s (%s)", call, where)
				.doesNotStartWith("_"));
		}
	}

	/**
	 * A body as sent, with the ids of its requests as written (in order), and of those marked to be answered later.
	 */
	private record Body(String json, List<String> requestIds, Map<String, String> resumed) {
	}

	/** A batch of one to five messages, or one message alone. */
	private static Body body(Random random, boolean nodeServer) {
		int count = 1 + random.nextInt(5);
		List<String> ids = new ArrayList<>();
		List<String> requestIds = new ArrayList<>();
		Map<String, String> resumed = new java.util.LinkedHashMap<>();
		List<String> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			messages.add(message(random, ids, requestIds, resumed, nodeServer));
		}
		String json = count == 1 && random.nextBoolean() ? messages.get(0) : "[" + String.join(",", messages) + "]";
		return new Body(json, requestIds, resumed);
	}

	private static String message(Random random, List<String> ids, List<String> requestIds,
			Map<String, String> resumed, boolean nodeServer) {
		return switch (random.nextInt(8)) {
			case 0 -> request(random, ids, requestIds, resumed, "tools/list", "{}");
			case 1, 2, 3 -> request(random, ids, requestIds, resumed, "tools/call", callParams(random, nodeServer));
			case 4 -> request(random, ids, requestIds, resumed, "ping", "{}");
			case 5 -> "{\"jsonrpc\":\"2.0\",\"method\":\""
					+ List.of("tools/call", "tools/list", "prompts/get", "resources/read").get(random.nextInt(4))
					+ "\",\"params\":" + callParams(random, false) + "}";
			case 6 -> "{\"jsonrpc\":\"2.0\",\"id\":" + id(random, ids) + ",\"result\":{\"action\":\"accept\"}}";
			default -> "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
		};
	}

	/** A request; one in three asks the server to answer it later ({@code _meta.resume}, which the SDK ignores). */
	private static String request(Random random, List<String> ids, List<String> requestIds,
			Map<String, String> resumed, String method, String params) {
		String id = id(random, ids);
		requestIds.add(id);
		if (random.nextInt(3) == 0) {
			resumed.put(id, method);
			params = params.equals("{}") ? "{\"_meta\":{\"resume\":true}}"
					: params.substring(0, params.length() - 1) + ",\"_meta\":{\"resume\":true}}";
		}
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + params + "}";
	}

	/**
	 * A tool call's params; to the Node server, one in four asks for a stray answer, under an id no request has even
	 * once rounded (an answer under a request's own id is that request's answer: what the relay promises is per id).
	 */
	private static String callParams(Random random, boolean strayAnswers) {
		String tool = List.of("echo", "echo", "whoami", "secret_admin", "secret_audit", "nope").get(random.nextInt(6));
		StringBuilder arguments = new StringBuilder("{\"message\":\"m\"");
		if (random.nextInt(4) == 0) {
			arguments.append(",\"_tenant\":\"evil\"");
		}
		if (strayAnswers && random.nextInt(4) == 0) {
			arguments.append(",\"strayId\":").append(random.nextInt(4) == 0 ? 9007199254742001L : 900 + random.nextInt(100));
		}
		return "{\"name\":\"" + tool + "\",\"arguments\":" + arguments.append('}') + "}";
	}

	/**
	 * A small integer; an integer past 2^53 (9007199254740993, ..., 9007199254741001: 995 and 997 are one double, as
	 * are 999 and 1001); 2^53 or 2^53 + 1 (one double too); a string; or an id already used in this body.
	 */
	private static String id(Random random, List<String> ids) {
		String id;
		if (!ids.isEmpty() && random.nextInt(5) == 0) {
			id = ids.get(random.nextInt(ids.size()));
		}
		else {
			id = switch (random.nextInt(4)) {
				case 0 -> String.valueOf(random.nextInt(20));
				case 1 -> String.valueOf(9007199254740993L + 2 * random.nextInt(5));
				case 2 -> String.valueOf(9007199254740992L + random.nextInt(2));
				default -> "\"s-" + random.nextInt(20) + "\"";
			};
		}
		ids.add(id);
		return id;
	}

	private List<JsonNode> nodeCalls(String method) {
		HttpResponse<String> response = new RawHttp(port).send(HttpRequest.newBuilder(URI.create(
				"http://127.0.0.1:" + node.port() + "/calls")).method(method, HttpRequest.BodyPublishers.noBody()));
		List<JsonNode> calls = new ArrayList<>();
		RawHttp.json(response.body()).forEach(calls::add);
		return calls;
	}

}
