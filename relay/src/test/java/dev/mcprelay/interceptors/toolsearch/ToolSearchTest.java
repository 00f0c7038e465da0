package dev.mcprelay.interceptors.toolsearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.ClientMessage;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.UserRequestInterceptor;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.TestUpstreams;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Tool search in front of the MCP Java SDK's server (tools {@code echo}, {@code secret_admin}, {@code secret_audit},
 * {@code progress}, {@code ask-model}, {@code whoami}), over raw HTTP: what a session lists and may call before and
 * after a search, the stream a search answers with, every bad argument, an unknown session, and the deny list holding
 * over what search returns.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(ToolSearchTest.UpstreamUser.class)
class ToolSearchTest {

	/** An upstream that opens a GET stream at once (the SDK's server answers a GET's headers with its first event). */
	static final ScriptedUpstream PROMPT = new ScriptedUpstream();

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.searching.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.searching.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.searching.tool-search.max-results", () -> "2");
		registry.add("mcp-relay.servers.searching.tool-search.always-expose[0]", () -> "who*");
		registry.add("mcp-relay.servers.searching.tools.deny[0]", () -> "secret_admin");
		registry.add("mcp-relay.servers.plain.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.prompt.url", () -> PROMPT.url("/mcp"));
		registry.add("mcp-relay.servers.prompt.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.paged.url", () -> PROMPT.url("/mcp"));
		registry.add("mcp-relay.servers.paged.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.exact.url", () -> PROMPT.url("/mcp"));
		registry.add("mcp-relay.servers.exact.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.headed.url", () -> PROMPT.url("/mcp"));
		registry.add("mcp-relay.servers.headed.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.broken.url", () -> PROMPT.url("/mcp"));
		registry.add("mcp-relay.servers.broken.tool-search.enabled", () -> "true");
	}

	/** On server {@code headed}, an interceptor sets an upstream header for every request. */
	@TestConfiguration(proxyBeanMethods = false)
	static class UpstreamUser {

		static final String HEADER = "X-Upstream-User";

		@Bean
		UserRequestInterceptor upstreamUser() {
			return new UserRequestInterceptor() {

				@Override
				public String name() {
					return "upstream-user";
				}

				@Override
				public boolean appliesTo(String server) {
					return "headed".equals(server);
				}

				@Override
				public Mono<Outcome> interceptUserRequest(ClientMessage message) {
					message.context().upstreamHeaders().set(HEADER, "user-from-interceptor");
					return Outcome.proceed();
				}

			};
		}

	}

	@AfterAll
	static void stopPrompt() {
		PROMPT.close();
	}

	@Test
	void aSessionListsTheSearchToolAndThePinnedOnesOnly() {
		McpSession session = McpSession.open(http(), "searching");

		assertThat(toolNames(session)).containsExactly("search_available_tools", "whoami");
		JsonNode search = tools(session).get(0);
		assertThat(search.at("/inputSchema/required/0").asText()).isEqualTo("query");
		assertThat(toolNames(McpSession.open(http(), "plain"))).as("a server without tool search lists everything")
			.contains("echo", "secret_admin", "progress");
	}

	@Test
	void aToolIsCallableOnceASearchFoundItAndTheNotificationComesFirst() {
		McpSession session = McpSession.open(http(), "searching");
		HttpResponse<String> early = session.post(call(2, "echo", "{\"message\":\"hi\"}"));
		assertThat(RawHttp.json(early.body()).at("/error/code").asInt()).isEqualTo(-32602);
		assertThat(RawHttp.json(early.body()).at("/error/message").asText()).contains("search_available_tools");
		assertThat(RawHttp.json(early.body()).at("/error/data/reason").asText())
			.as("cold review D, finding 7: every refusal carries its reason, as on a virtual server").isEqualTo("not_exposed");

		HttpResponse<String> found = session.post(call(3, "search_available_tools", "{\"query\":\"echo\"}"));

		assertThat(found.headers().firstValue("Content-Type")).hasValueSatisfying(
				type -> assertThat(type).startsWith("text/event-stream"));
		List<JsonNode> events = RawHttp.sseData(found.body());
		assertThat(events).hasSize(2);
		assertThat(events.get(0).path("method").asText()).as("the list changed before the result")
			.isEqualTo("notifications/tools/list_changed");
		assertThat(events.get(1).at("/id").asInt()).isEqualTo(3);
		assertThat(events.get(1).at("/result/structuredContent/tools/0/name").asText()).isEqualTo("echo");
		assertThat(events.get(1).at("/result/content/0/text").asText()).contains("echo");
		assertThat(toolNames(session)).as("in the catalogue's order").containsExactlyInAnyOrder("search_available_tools", "whoami", "echo");
		HttpResponse<String> called = session.post(call(4, "echo", "{\"message\":\"hi\"}"));
		assertThat(RawHttp.messagesOf(called)).last()
			.satisfies(answer -> assertThat(answer.at("/result/content/0/text").asText()).isEqualTo("hi"));
		assertThat(toolNames(McpSession.open(http(), "searching"))).as("another session has found nothing")
			.doesNotContain("echo");
		assertThat(registry.get(ToolSearchMeters.SEARCHES).tag("server", "searching").counter().count())
			.as("searches are counted").isPositive();
		assertThat(registry.get(ToolSearchMeters.RESULTS).tag("server", "searching").summary().totalAmount())
			.as("results are counted").isPositive();
		assertThat(registry.get(ToolSearchMeters.EXPOSED).tag("server", "searching").summary().max())
			.as("the exposed set's size is recorded").isGreaterThanOrEqualTo(1);
	}

	@Test
	void aClientThatTakesOnlyJsonGetsTheResultAlone() {
		McpSession session = McpSession.open(http(), "searching");
		HttpResponse<String> found = http().send(session.request(call(5, "search_available_tools", "{\"query\":\"echo\"}"))
			.setHeader("Accept", "application/json"));

		assertThat(found.headers().firstValue("Content-Type")).hasValueSatisfying(
				type -> assertThat(type).startsWith("application/json"));
		assertThat(RawHttp.json(found.body()).at("/result/structuredContent/tools/0/name").asText()).isEqualTo("echo");
	}

	@Test
	void aJsonOnlyClientGetsTheNotificationOnItsOpenGetStream() throws Exception {
		// The SDK's server sends a GET's headers only with its first event; this upstream opens the stream at once.
		PROMPT.scriptWithBody((request, response, body) -> {
			if (request.method().name().equals("GET")) {
				return response.header("Content-Type", "text/event-stream").sendString(Flux.just(": open\n\n")
					.concatWith(Flux.never()));
			}
			JsonNode message = RawHttp.json(body);
			String method = message.path("method").asText();
			if (!message.has("id")) {
				return response.status(202).send();
			}
			String result = method.equals("initialize")
					? "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"p\",\"version\":\"1\"}}"
					: "{\"tools\":[{\"name\":\"echo\",\"description\":\"Echoes\",\"inputSchema\":{\"type\":\"object\"}}]}";
			return response.header("Content-Type", "application/json").header("Mcp-Session-Id", "prompt-session")
				.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":" + message.get("id") + ",\"result\":" + result + "}"));
		});
		McpSession session = McpSession.open(http(), "prompt");
		HttpResponse<InputStream> stream = http().open(http().request("prompt")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.GET());
		assertThat(stream.statusCode()).isEqualTo(200);
		CompletableFuture<String> firstData = CompletableFuture.supplyAsync(() -> {
			try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
				for (String line = reader.readLine(); line != null; line = reader.readLine()) {
					if (line.startsWith("data:")) {
						return line;
					}
				}
				return "the stream ended";
			}
			catch (java.io.IOException ex) {
				return ex.toString();
			}
		});

		HttpResponse<String> found = http().send(session.request(call(12, "search_available_tools",
				"{\"query\":\"echo\"}")).setHeader("Accept", "application/json"));

		assertThat(RawHttp.json(found.body()).at("/result/structuredContent/tools/0/name").asText()).isEqualTo("echo");
		assertThat(firstData.get(10, TimeUnit.SECONDS)).as("the notification went to the open GET stream")
			.contains("notifications/tools/list_changed");
	}

	@Test
	void theWholeCatalogueIsListedPageByPageAndListedAgainWhenItChanges() throws Exception {
		Sinks.Many<String> serverStream = Sinks.many().unicast().onBackpressureBuffer();
		PROMPT.scriptWithBody((request, response, body) -> {
			if (request.method().name().equals("GET")) {
				return response.header("Content-Type", "text/event-stream")
					.sendString(Flux.just(": open\n\n").concatWith(serverStream.asFlux()));
			}
			JsonNode message = RawHttp.json(body);
			if (!message.has("id")) {
				return response.status(202).send();
			}
			String method = message.path("method").asText();
			String cursor = message.at("/params/cursor").asText("");
			String result = method.equals("initialize")
					? "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{\"listChanged\":true}},\"serverInfo\":{\"name\":\"p\",\"version\":\"1\"}}"
					: cursor.isEmpty()
							? "{\"tools\":[" + tool("echo", "Echoes") + "],\"nextCursor\":\"page-2\"}"
							: "{\"tools\":[" + tool("rotate_keys", "Rotates the API keys") + "]}";
			return response.header("Content-Type", "application/json").header("Mcp-Session-Id", "paged-session")
				.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":" + message.get("id") + ",\"result\":" + result + "}"));
		});
		McpSession session = McpSession.open(http(), "paged");

		JsonNode found = result(session.post(call(13, "search_available_tools", "{\"query\":\"rotate keys\"}")));
		assertThat(found.at("/structuredContent/tools/0/name").asText()).as("found on the second page")
			.isEqualTo("rotate_keys");
		long listings = listingsSeen();
		result(session.post(call(14, "search_available_tools", "{\"query\":\"echo\"}")));
		assertThat(listingsSeen()).as("the catalogue is kept between searches").isEqualTo(listings);

		HttpResponse<InputStream> stream = http().open(http().request("paged")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.GET());
		serverStream.tryEmitNext("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n");
		try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
			String line = reader.readLine();
			while (line != null && !line.contains("list_changed")) {
				line = reader.readLine();
			}
			assertThat(line).as("the client got the server's notification").contains("list_changed");
		}
		result(session.post(call(15, "search_available_tools", "{\"query\":\"echo\"}")));
		assertThat(listingsSeen()).as("after list_changed the catalogue is listed again, both pages")
			.isEqualTo(listings + 2);
	}

	/**
	 * A tool with fields no SDK type models, and numbers in two forms: what tool search must relay untouched (a number
	 * with an exponent is written in Java's form, {@code 1e2} as {@code 1E+2}: docs/interceptors.md says so).
	 */
	private static final String EXACT_TOOL = "{\"name\":\"rotate_keys\",\"title\":\"Rotate keys\",\"description\":"
			+ "\"Rotates the vendor's API keys\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"service\":"
			+ "{\"type\":\"string\",\"maxLength\":64}}},\"outputSchema\":{\"type\":\"object\"},\"annotations\":"
			+ "{\"destructiveHint\":true},\"execution\":{\"taskSupport\":\"optional\"},\"icons\":[{\"src\":"
			+ "\"https://example.com/k.png\"}],\"x-vendor\":{\"rank\":1.50,\"weight\":1e2,\"tags\":[\"keys\"]},\"_meta\":"
			+ "{\"vendor.example/owner\":\"ops\"}}";

	@Test
	void toolsAreListedExactlyAsTheServerSentThem() {
		scriptTwoPagesEndingWith(EXACT_TOOL, "exact-session");
		McpSession session = McpSession.open(http(), "exact");

		result(session.post(call(16, "search_available_tools", "{\"query\":\"rotate vendor keys\"}")));
		JsonNode listed = tools(session).stream()
			.filter(tool -> tool.path("name").asText().equals("rotate_keys"))
			.findFirst()
			.orElseThrow(() -> new AssertionError("the found tool is not listed"));

		assertThat(listed).as("every field, execution and vendor fields too, as the server sent it")
			.isEqualTo(RawHttp.json(EXACT_TOOL));
		assertThat(session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}").body())
			.as("numbers keep their value and precision; an exponent is written in Java's form")
			.contains("\"rank\":1.50").contains("\"weight\":1E+2");
	}

	@Test
	void theCatalogueIsListedWithTheUpstreamHeadersTheInterceptorsSet() {
		scriptTwoPagesEndingWith(EXACT_TOOL, "headed-session");
		McpSession session = McpSession.open(http(), "headed");

		result(session.post(call(17, "search_available_tools", "{\"query\":\"rotate keys\"}")));

		assertThat(PROMPT.seen()).filteredOn(seen -> seen.body().contains("mcp-relay-tools-"))
			.as("the relay's own listing of the catalogue, both pages")
			.hasSize(2)
			.allSatisfy(seen -> assertThat(seen.headers().getFirst(UpstreamUser.HEADER))
				.as("carries the header the interceptors set for the request it serves").isEqualTo("user-from-interceptor"));
	}

	/** {@code PROMPT} answers initialize, and tools/list in two pages, the second holding {@code lastTool}. */
	private static void scriptTwoPagesEndingWith(String lastTool, String sessionId) {
		PROMPT.clear();
		PROMPT.scriptWithBody((request, response, body) -> {
			JsonNode message = RawHttp.json(body);
			if (!message.has("id")) {
				return response.status(202).send();
			}
			String result = message.path("method").asText().equals("initialize")
					? "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"p\","
							+ "\"version\":\"1\"}}"
					: message.at("/params/cursor").isMissingNode()
							? "{\"tools\":[" + tool("echo", "Echoes") + "],\"nextCursor\":\"page-2\"}"
							: "{\"tools\":[" + lastTool + "]}";
			return response.header("Content-Type", "application/json").header("Mcp-Session-Id", sessionId)
				.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":" + message.get("id") + ",\"result\":" + result + "}"));
		});
	}

	private static long listingsSeen() {
		return PROMPT.seen().stream().filter(seen -> seen.body().contains("\"tools/list\"")).count();
	}

	private static String tool(String name, String description) {
		return "{\"name\":\"" + name + "\",\"description\":\"" + description + "\",\"inputSchema\":{\"type\":\"object\"}}";
	}

	@Test
	void theDenyListHoldsOverWhatSearchReturns() {
		McpSession session = McpSession.open(http(), "searching");

		JsonNode result = result(session.post(call(6, "search_available_tools", "{\"query\":\"secret admin audit\"}")));

		assertThat(result.findValuesAsText("name")).contains("secret_audit").doesNotContain("secret_admin");
		assertThat(RawHttp.json(session.post(call(7, "secret_admin", "{}")).body()).at("/error/code").asInt())
			.isEqualTo(-32602);
	}

	@Test
	void aSearchWhoseListingTheUpstreamFailsIsRefusedWithTheFailuresReason() {
		// cold review F, LOW 5: it escaped as an interceptor's failure, -32603 with no data.reason
		PROMPT.clear();
		PROMPT.scriptWithBody((request, response, body) -> {
			JsonNode message = RawHttp.json(body);
			if (!message.has("id")) {
				return response.status(202).send();
			}
			if (message.path("method").asText().equals("tools/list")) {
				return response.status(500).header("Content-Type", "text/plain").sendString(Mono.just("down"));
			}
			return response.header("Content-Type", "application/json").header("Mcp-Session-Id", "broken-session")
				.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":" + message.get("id") + ",\"result\":{"
						+ "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":"
						+ "{\"name\":\"p\",\"version\":\"1\"}}}"));
		});
		McpSession session = McpSession.open(http(), "broken");

		JsonNode answer = RawHttp.messagesOf(session.post(call(21, "search_available_tools", "{\"query\":\"echo\"}")))
			.get(0);

		assertThat(answer.at("/error/code").asInt()).as(answer.toString()).isEqualTo(-32603);
		assertThat(answer.at("/error/message").asText()).contains("cannot list the tools of server 'broken'");
		assertThat(answer.at("/error/data/reason").asText()).as(answer.toString()).isEqualTo("upstream_error_status");
	}

	@Test
	void aCallOfTheSearchToolWithBadArgumentsIsRefusedClearly() {
		McpSession session = McpSession.open(http(), "searching");
		for (String arguments : List.of("{}", "{\"query\":\"\"}", "{\"query\":\"   \"}", "{\"query\":42}",
				"{\"query\":\"echo\",\"limit\":0}", "{\"query\":\"echo\",\"limit\":-1}",
				"{\"query\":\"echo\",\"limit\":\"x\"}", "{\"query\":\"echo\",\"limit\":1.5}")) {
			JsonNode answer = RawHttp.json(session.post(call(8, "search_available_tools", arguments)).body());
			assertThat(answer.at("/error/code").asInt()).as(arguments).isEqualTo(-32602);
			assertThat(answer.at("/error/message").asText()).as(arguments).containsAnyOf("query", "limit");
		}
	}

	@Test
	void oddButValidQueriesAnswerAndNeverFail() {
		McpSession session = McpSession.open(http(), "searching");

		JsonNode huge = result(session.post(call(9, "search_available_tools",
				"{\"query\":\"" + "echo ".repeat(2_000) + "\",\"limit\":1000000000}")));
		assertThat(huge.at("/structuredContent/tools")).as("a 10 KB query and a limit of 10^9 (capped at 2)")
			.hasSizeBetween(1, 2);
		JsonNode syntax = result(session.post(call(10, "search_available_tools",
				"{\"query\":\"echo AND (title:\\\"x\\\" OR *?~^)\"}")));
		assertThat(syntax.at("/structuredContent/tools/0/name").asText()).isEqualTo("echo");
		JsonNode nothing = result(session.post(call(11, "search_available_tools", "{\"query\":\"zzzqqq\"}")));
		assertThat(nothing.at("/structuredContent/tools")).isEmpty();
		assertThat(nothing.at("/content/0/text").asText()).contains("No tools match");
	}

	@Test
	void aSessionTheRelayDoesNotKnowGets404() {
		RawHttp http = http();
		HttpResponse<String> listed = http.send(http.post("searching", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}")
			.header("Mcp-Session-Id", "no-such-session"));

		assertThat(listed.statusCode()).isEqualTo(404);
		assertThat(RawHttp.json(listed.body()).at("/id").asInt()).isEqualTo(1);
		assertThat(RawHttp.json(listed.body()).at("/error/data/reason").asText()).isEqualTo("session_not_found");
		HttpResponse<String> searched = http.send(http.post("searching", call(2, "search_available_tools",
				"{\"query\":\"echo\"}")).header("Mcp-Session-Id", "no-such-session"));
		assertThat(searched.statusCode()).isEqualTo(404);
	}

	private RawHttp http() {
		return new RawHttp(port);
	}

	static String call(int id, String tool, String arguments) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
				+ "\",\"arguments\":" + arguments + "}}";
	}

	private static JsonNode result(HttpResponse<String> response) {
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as(response.body()).isNotEmpty();
		JsonNode last = messages.get(messages.size() - 1);
		assertThat(last.has("result")).as(response.body()).isTrue();
		return last.get("result");
	}

	static List<JsonNode> tools(McpSession session) {
		HttpResponse<String> listed = session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
		List<JsonNode> messages = RawHttp.messagesOf(listed);
		JsonNode tools = messages.get(messages.size() - 1).at("/result/tools");
		assertThat(tools.isArray()).as(listed.body()).isTrue();
		List<JsonNode> all = new java.util.ArrayList<>();
		tools.forEach(all::add);
		return all;
	}

	static List<String> toolNames(McpSession session) {
		return tools(session).stream().map(tool -> tool.path("name").asText()).toList();
	}

}
