package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestUpstreams;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;

/**
 * Changes made through the views' setters reach their destination, spliced into the original message so that
 * {@code _meta} and fields no type models survive; a message nobody changed is relayed byte for byte.
 */
class InterceptorMutationTest extends InterceptorIntegrationTest {

	/** A tools/list answer with fields the MCP SDK's types do not model, and a number whose text matters. */
	private static final String VENDOR_TOOL = "{\"name\":\"kept\",\"inputSchema\":{\"type\":\"object\"},"
			+ "\"execution\":{\"taskSupport\":\"optional\"},\"x-vendor\":{\"weights\":[1,2.50]},\"_meta\":{\"m\":1}}";

	private static final String VENDOR_LIST = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[" + VENDOR_TOOL
			+ ",{\"name\":\"hidden\",\"inputSchema\":{\"type\":\"object\"}}],\"nextCursor\":\"page-2\",\"_meta\":{\"page\":1}}}";

	@ParameterizedTest(name = "{0}: changed arguments reach the upstream, the rest of the request intact")
	@ValueSource(strings = { "sdk", "sdk-json" })
	void changedArgumentsReachTheUpstreamWithTheRestIntact(String server) {
		McpSession session = session(server);
		script.on("first", Stage.TOOLS_CALL_REQUEST, call -> {
			call.setArgument("message", "rewritten by the relay");
			return Outcome.proceed();
		});

		HttpResponse<String> response = session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"echo\",\"arguments\":{\"message\":\"original\",\"other\":2.50},\"_meta\":{\"trace\":\"t-1\"}},"
				+ "\"x-client-extension\":true}");

		assertThat(messages(response).get(0).at("/result/content/0/text").asText())
			.as("the upstream echoed the changed argument").isEqualTo("rewritten by the relay");
		List<SdkMcpUpstream.Seen> calls = upstream.seen().stream()
			.filter(seen -> seen.body().contains("tools/call"))
			.toList();
		assertThat(calls).hasSize(1);
		JsonNode sent = calls.get(0).json();
		assertThat(sent.at("/params/arguments/message").asText()).isEqualTo("rewritten by the relay");
		assertThat(calls.get(0).body()).as("other arguments keep their exact number text").contains("\"other\":2.50");
		assertThat(sent.at("/params/_meta/trace").asText()).as("_meta survives").isEqualTo("t-1");
		assertThat(sent.path("x-client-extension").asBoolean()).as("unknown fields survive").isTrue();
	}

	@Test
	void nothingAnInterceptorDoesThroughTheReadOnlyViewsReachesTheUpstream() {
		List<String> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
		List<String> allowed = new java.util.concurrent.CopyOnWriteArrayList<>();
		script.on("first", Stage.TOOLS_CALL_REQUEST, call -> {
			java.util.Map<String, Object> arguments = call.argumentsView();
			@SuppressWarnings("unchecked")
			java.util.Map<String, Object> nested = (java.util.Map<String, Object>) arguments.get("nested");
			@SuppressWarnings("unchecked")
			List<Object> list = (List<Object>) arguments.get("list");
			java.util.Map<String, Runnable> attempts = new java.util.LinkedHashMap<>();
			attempts.put("put an argument", () -> arguments.put("message", "forged"));
			attempts.put("remove an argument", () -> arguments.remove("message"));
			attempts.put("clear the arguments", arguments::clear);
			attempts.put("set an entry", () -> arguments.entrySet().iterator().next().setValue("forged"));
			attempts.put("put a nested value", () -> nested.put("deep", "forged"));
			attempts.put("set a list element", () -> list.set(0, "forged"));
			attempts.put("put a param", () -> call.paramsView().put("name", "forged"));
			attempts.put("remove the arguments param", () -> call.paramsView().remove("arguments"));
			attempts.forEach((attempt, change) -> {
				try {
					change.run();
					allowed.add(attempt);
				}
				catch (UnsupportedOperationException expected) {
					refused.add(attempt);
				}
			});
			return Outcome.proceed();
		});
		// a change through a setter afterwards: the message is re-encoded from its tree, so anything the views had
		// changed in it would reach the upstream
		script.on("second", Stage.TOOLS_CALL_REQUEST, call -> {
			call.putMeta("relay.example/seen", true);
			return Outcome.proceed();
		});
		String arguments = "{\"message\":\"original\",\"nested\":{\"deep\":2.50},\"list\":[\"a\",null]}";

		http().send(http().post("sdk-json", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"echo\",\"arguments\":" + arguments + "}}"));

		assertThat(allowed).as("changes the views let through").isEmpty();
		assertThat(refused).hasSize(8);
		List<SdkMcpUpstream.Seen> calls = upstream.seen().stream()
			.filter(seen -> seen.body().contains("tools/call"))
			.toList();
		assertThat(calls).hasSize(1);
		assertThat(calls.get(0).body()).as("the arguments as the client sent them")
			.contains("\"arguments\":" + arguments);
		assertThat(calls.get(0).json().at("/params/name").asText()).isEqualTo("echo");
		assertThat(calls.get(0).json().at("/params/_meta/relay.example~1seen").asBoolean()).isTrue();
	}

	@Test
	void requestNobodyChangedIsForwardedByteForByte() {
		String body = "{ \"jsonrpc\" : \"2.0\",\n \"id\":\"b\", \"method\":\"tools/call\", \"params\":{\"name\":\"echo\","
				+ "\"arguments\":{\"message\":\"caf\\u00e9\"}} }";

		http().send(http().post("sdk-json", body));

		assertThat(upstream.seen()).extracting(SdkMcpUpstream.Seen::body).containsExactly(body);
	}

	@Test
	void metaCanBeSetOnAnyRequest() {
		script.on("first", Stage.OTHER_REQUEST, request -> {
			request.putMeta("relay.example/tenant", "blue");
			return Outcome.proceed();
		});

		http().send(http().post("sdk-json", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"));

		assertThat(upstreamReceived("ping")).singleElement()
			.satisfies(ping -> assertThat(ping.at("/params/_meta/relay.example~1tenant").asText()).isEqualTo("blue"));
	}

	@ParameterizedTest(name = "{0}: tools hidden from tools/list vanish; the others keep their _meta")
	@ValueSource(strings = { "sdk", "sdk-json" })
	void hiddenToolsVanishFromTheListAndTheOthersKeepTheirMeta(String server) {
		McpSession session = session(server);
		script.on("second", Stage.TOOLS_LIST_RESPONSE, list -> {
			list.removeToolsIf(tool -> tool.name().startsWith("secret_"));
			return Outcome.proceed();
		});

		List<JsonNode> messages = messages(session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"));

		JsonNode tools = messages.get(0).at("/result/tools");
		assertThat(tools.findValuesAsText("name")).doesNotContain("secret_admin", "secret_audit").contains("echo");
		JsonNode echo = tools.get(tools.findValuesAsText("name").indexOf("echo"));
		assertThat(echo.at("/_meta/vendor.example~1rank").asInt()).isEqualTo(SdkMcpUpstream.ECHO_META.get("vendor.example/rank"));
	}

	@ParameterizedTest(name = "a mutated tools/list keeps every field no type models ({0})")
	@ValueSource(strings = { "application/json", "text/event-stream" })
	void mutatedToolListKeepsEveryFieldNoTypeModels(String answerType) {
		boolean sse = answerType.equals("text/event-stream");
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", answerType)
			.sendString(Mono.just(sse ? "id: 9\nevent: message\ndata: " + VENDOR_LIST + "\n\n" : VENDOR_LIST)));
		script.on("first", Stage.TOOLS_LIST_RESPONSE, list -> {
			list.removeToolsIf(tool -> tool.name().equals("hidden"));
			return Outcome.proceed();
		});

		HttpResponse<String> response = http().send(http().post("scripted", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"));

		String expected = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[" + VENDOR_TOOL
				+ "],\"nextCursor\":\"page-2\",\"_meta\":{\"page\":1}}}";
		String relayed = sse ? response.body().substring(response.body().indexOf("data: ") + 6).strip() : response.body();
		assertThat(relayed).as("the list without the hidden tool, every other byte as the upstream wrote it")
			.isEqualTo(expected);
		if (sse) {
			assertThat(response.body()).startsWith("id: 9\nevent: message\n");
		}
	}

	@ParameterizedTest(name = "{0}: a tools/call result's setters change what the client gets, unknown fields intact")
	@ValueSource(strings = { "sdk", "sdk-json" })
	void toolsCallResultSettersChangeWhatTheClientGets(String server) {
		McpSession session = session(server);
		script.on("first", Stage.TOOLS_CALL_RESPONSE, response -> {
			assertThat(response.content()).singleElement()
				.isInstanceOfSatisfying(McpSchema.TextContent.class, text -> assertThat(text.text()).isEqualTo("hi"));
			response.setContent(List.of(new McpSchema.TextContent("[checked] hi")));
			response.setStructuredContent(java.util.Map.of("checked", true));
			response.setError(false);
			return Outcome.proceed();
		});

		JsonNode result = messages(session.post("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"}}}")).get(0).path("result");

		assertThat(result.at("/content/0/text").asText()).isEqualTo("[checked] hi");
		assertThat(result.at("/structuredContent/checked").asBoolean()).isTrue();
		assertThat(result.path("isError").asBoolean(true)).isFalse();
	}

	@ParameterizedTest(name = "{0}: initialize's setters change what the client gets, the rest kept")
	@ValueSource(strings = { "sdk", "sdk-json" })
	void initializeSettersChangeWhatTheClientGets(String server) {
		script.on("first", Stage.INITIALIZE_RESPONSE, response -> {
			response.setInstructions("Use the echo tool for greetings.");
			response.setServerInfo(new McpSchema.Implementation("relayed-" + response.serverInfo().name(), "1.0.0"));
			return Outcome.proceed();
		});

		JsonNode result = messages(http().send(http().post(server, McpSession.initialize(1)))).get(0).path("result");

		assertThat(result.path("instructions").asText()).isEqualTo("Use the echo tool for greetings.");
		assertThat(result.at("/serverInfo/name").asText()).startsWith("relayed-sdk");
		assertThat(result.path("protocolVersion").asText()).as("untouched").isEqualTo(McpSession.PROTOCOL_VERSION);
		assertThat(result.at("/capabilities/tools").isObject()).as("untouched").isTrue();
	}

	@ParameterizedTest(name = "{0}: a replaced result reaches the client")
	@ValueSource(strings = { "sdk", "sdk-json" })
	void replacedResultReachesTheClient(String server) {
		McpSession session = session(server);
		script.on("first", Stage.TOOLS_CALL_RESPONSE, response -> {
			if (response.toolName().equals("echo")) {
				response.replaceResult(McpSchema.CallToolResult.builder().addTextContent("[redacted]").build());
			}
			return Outcome.proceed();
		});

		List<JsonNode> messages = messages(session.post(RawHttp.toolsCall(5, "echo")));

		assertThat(messages).singleElement().satisfies(message -> {
			assertThat(message.path("id").asInt()).isEqualTo(5);
			assertThat(message.at("/result/content/0/text").asText()).isEqualTo("[redacted]");
		});
	}

}
