package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.TestUpstreams;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;

/**
 * Each outcome an interceptor can return produces the wire form DESIGN section 5 documents, on the JSON and the SSE
 * response path; an interceptor that fails is contained.
 */
class InterceptorOutcomesTest extends InterceptorIntegrationTest {

	private static final String PROGRESS_CALL = "{\"jsonrpc\":\"2.0\",\"id\":\"p1\",\"method\":\"tools/call\",\"params\":"
			+ "{\"name\":\"progress\",\"arguments\":{},\"_meta\":{\"progressToken\":\"tok\"}}}";

	@ParameterizedTest(name = "{0}: a rejected request is answered 200 with its id, and never forwarded")
	@ValueSource(strings = { "sdk", "sdk-json" })
	void rejectedRequestIsAnswered200WithItsIdAndNeverForwarded(String server) {
		McpSession session = session(server);
		script.on("first", Stage.TOOLS_CALL_REQUEST, call -> Outcome.reject(new RejectError(-32000,
				"Tool " + call.toolName() + " is off for your team", Map.of("policy", "team-tools"))));

		HttpResponse<String> response = session.post(RawHttp.toolsCall("call-7", "echo"));

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
		JsonNode body = RawHttp.json(response.body());
		assertThat(body.path("id").asText()).as("the error carries the request's id").isEqualTo("call-7");
		assertThat(body.path("error").path("code").asInt()).isEqualTo(-32000);
		assertThat(body.path("error").path("message").asText()).isEqualTo("Tool echo is off for your team");
		assertThat(body.path("error").path("data").path("policy").asText()).isEqualTo("team-tools");
		assertThat(upstreamReceived("tools/call")).as("nothing was forwarded").isEmpty();
	}

	@Test
	void rejectedNotificationIsAnswered400WithoutIdAndNeverForwarded() {
		McpSession session = session("sdk");
		script.on("first", Stage.CLIENT_NOTIFICATION, notification -> Outcome.reject(RejectError.policy("Not now")));

		HttpResponse<String> response = session.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");

		assertThat(response.statusCode()).isEqualTo(400);
		JsonNode body = RawHttp.json(response.body());
		assertThat(body.get("id").isNull()).as("a notification has no id to answer").isTrue();
		assertThat(body.path("error").path("message").asText()).isEqualTo("Not now");
		assertThat(upstreamReceived("notifications/roots/list_changed")).isEmpty();
	}

	@ParameterizedTest(name = "{0}: respond answers the request and the upstream sees nothing")
	@ValueSource(strings = { "sdk", "sdk-json" })
	void respondAnswersTheRequestAndTheUpstreamSeesNothing(String server) {
		McpSession session = session(server);
		upstream.clearSeen();
		script.on("second", Stage.TOOLS_CALL_REQUEST, call -> Outcome
			.respond(McpSchema.CallToolResult.builder().addTextContent("from the cache").build()));

		HttpResponse<String> response = session.post(RawHttp.toolsCall(11, "echo"));

		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode body = RawHttp.json(response.body());
		assertThat(body.path("id").asInt()).isEqualTo(11);
		assertThat(body.at("/result/content/0/text").asText()).isEqualTo("from the cache");
		assertThat(upstream.seen()).as("the upstream saw nothing").isEmpty();
	}

	@Test
	void userRequestStageMayAnswerAnyRequest() {
		script.on("first", Stage.USER_REQUEST,
				message -> "ping".equals(message.method()) ? Outcome.respond(Map.of()) : Outcome.proceed());

		HttpResponse<String> response = http().send(http().post("sdk-json", "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"ping\"}"));

		assertThat(RawHttp.json(response.body()).toString()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{}}");
		assertThat(upstream.seen()).isEmpty();
	}

	@ParameterizedTest(name = "{0}: a response rejected at the remote-message stage becomes an error with its id")
	@ValueSource(strings = { "sdk", "sdk-json" })
	void responseRejectedAsRemoteMessageBecomesAnErrorWithItsId(String server) {
		McpSession session = session(server);
		script.on("first", Stage.REMOTE_MESSAGE, message -> "tools/call".equals(message.method())
				? Outcome.reject(RejectError.policy("The answer was withheld")) : Outcome.proceed());

		HttpResponse<String> response = session.post(RawHttp.toolsCall(21, "echo"));

		List<JsonNode> messages = messages(response);
		assertThat(messages).hasSize(1);
		assertThat(messages.get(0).path("id").asInt()).isEqualTo(21);
		assertThat(messages.get(0).path("error").path("message").asText()).isEqualTo("The answer was withheld");
		assertThat(messages.get(0).has("result")).isFalse();
		assertThat(script.seenBy("second")).as("the response stage never saw the withheld answer")
			.doesNotContain("tools-call-response tools/call");
	}

	@ParameterizedTest(name = "{0}: a response rejected at its per-method stage becomes an error with its id")
	@ValueSource(strings = { "sdk", "sdk-json" })
	void responseRejectedAtItsMethodStageBecomesAnErrorWithItsId(String server) {
		McpSession session = session(server);
		script.on("second", Stage.TOOLS_LIST_RESPONSE,
				list -> Outcome.reject(new RejectError(-32603, "Tool list unavailable")));

		HttpResponse<String> response = session.post("{\"jsonrpc\":\"2.0\",\"id\":31,\"method\":\"tools/list\"}");

		List<JsonNode> messages = messages(response);
		assertThat(messages).hasSize(1);
		assertThat(messages.get(0).path("id").asInt()).isEqualTo(31);
		assertThat(messages.get(0).path("error").path("message").asText()).isEqualTo("Tool list unavailable");
	}

	@Test
	void rejectedSseNotificationIsReplacedInlineWhileTheEventsAroundItFlow() {
		McpSession session = session("sdk");
		upstream.releaseProgress();
		script.on("first", Stage.REMOTE_MESSAGE,
				message -> "second".equals(message.json().at("/params/message").asText())
						? Outcome.reject(RejectError.policy("Progress hidden")) : Outcome.proceed());

		HttpResponse<String> response = session.post(PROGRESS_CALL);

		List<JsonNode> messages = messages(response);
		assertThat(messages).extracting(message -> message.path("method").asText("response"))
			.containsExactly("notifications/progress", "notifications/message", "notifications/progress",
					"response");
		assertThat(messages.get(0).at("/params/message").asText()).isEqualTo("first");
		JsonNode substitute = messages.get(1).path("params");
		assertThat(substitute.path("level").asText()).isEqualTo("error");
		assertThat(substitute.at("/data/rejectedMethod").asText()).isEqualTo("notifications/progress");
		assertThat(substitute.at("/data/error").asText()).isEqualTo("Progress hidden");
		assertThat(messages.get(2).at("/params/message").asText()).isEqualTo("third");
		assertThat(messages.get(3).at("/result/content/0/text").asText()).isEqualTo("done");
	}

	@Test
	void substitutedSseEventKeepsItsIdEventAndRetryFields() {
		// Exact SSE fields need byte control over the upstream's stream: the scripted upstream sends them.
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "text/event-stream")
			.sendString(Mono.just("id: ev-1\nretry: 1500\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n"
					+ "id: ev-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\n")));
		script.on("first", Stage.REMOTE_MESSAGE, message -> message.kind() == JsonRpcMessage.Kind.NOTIFICATION
				? Outcome.reject(RejectError.policy("no progress")) : Outcome.proceed());

		HttpResponse<String> response = http().send(http().post("scripted", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}"));

		String[] events = response.body().split("\n\n");
		assertThat(events[0]).startsWith("id: ev-1\nevent: message\nretry: 1500\ndata: ")
			.contains("\"method\":\"notifications/message\"");
		assertThat(events[1]).as("the untouched event, byte for byte")
			.isEqualTo("id: ev-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}");
	}

	@Test
	void serverRequestOnAGetStreamRejectedIsAnsweredToTheServerAndOnlyItsEventIdReachesTheClient() {
		// A GET stream carrying a server-to-client request: the scripted upstream sends one, with exact fields.
		TestUpstreams.SCRIPTED.script((request, response) -> request.method().name().equals("POST")
				? response.status(202).send()
				: response.status(200)
					.header("Content-Type", "text/event-stream")
					.sendString(Mono.just("id: g-1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-7\",\"method\":"
							+ "\"sampling/createMessage\",\"params\":{\"messages\":[],\"maxTokens\":5}}\n\n"
							+ "id: g-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n")));
		script.on("first", Stage.REMOTE_MESSAGE, message -> "sampling/createMessage".equals(message.method())
				? Outcome.reject(RejectError.policy("Sampling is not allowed through this relay")) : Outcome.proceed());

		HttpResponse<String> response = http().send(http().request("scripted")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", "s-9")
			.header("Last-Event-ID", "g-0")
			.GET());

		String[] events = response.body().split("\n\n");
		assertThat(events[0]).as("only the rejected event's id reaches the client, so resumption skips it")
			.isEqualTo("id: g-1");
		assertThat(events[1]).as("the notification after it, untouched")
			.isEqualTo("id: g-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
		ScriptedUpstream.Seen answer = TestUpstreams.SCRIPTED.seen()
			.stream()
			.filter(seen -> seen.method().equals("POST"))
			.findFirst()
			.orElseThrow(() -> new AssertionError("the server never got an answer to its request"));
		JsonNode error = RawHttp.json(answer.body());
		assertThat(error.path("id").asText()).as("the server's own request id").isEqualTo("srv-7");
		assertThat(error.at("/error/message").asText()).isEqualTo("Sampling is not allowed through this relay");
		assertThat(answer.headers().getFirst("Mcp-Session-Id")).as("in the session of the stream").isEqualTo("s-9");
		assertThat(answer.headers().getFirst("Accept")).contains("application/json").contains("text/event-stream");
		assertThat(answer.headers().containsHeader("Last-Event-ID")).as("the GET's resumption header is not an answer's")
			.isFalse();
		assertThat(script.seenBy("first")).containsExactly("user-request null", "remote-message sampling/createMessage",
				"remote-message notifications/tools/list_changed", "server-notification notifications/tools/list_changed");
	}

	@ParameterizedTest(name = "{0}: an interceptor that throws is contained, its exception logged and never shown")
	@ValueSource(strings = { "sdk", "sdk-json" })
	void interceptorThatThrowsIsContained(String server) {
		McpSession session = session(server);
		script.on("first", Stage.TOOLS_CALL_REQUEST, call -> {
			throw new IllegalStateException("db password is hunter2");
		});

		HttpResponse<String> response = session.post(RawHttp.toolsCall(41, "echo"));

		assertGenericInternalError(response, 41);
		assertThat(CapturedLogs.all()).anySatisfy(line -> assertThat(line).contains("Interceptor 'first'")
			.contains("tools-call-request")
			.contains("db password is hunter2"));
	}

	@ParameterizedTest(name = "{0}: an interceptor that errors later is contained")
	@ValueSource(strings = { "sdk", "sdk-json" })
	void interceptorThatErrorsAsynchronouslyIsContained(String server) {
		McpSession session = session(server);
		script.on("second", Stage.TOOLS_CALL_RESPONSE, response -> Mono.delay(Duration.ofMillis(50))
			.then(Mono.error(new IllegalStateException("lookup failed for internal host db-7"))));

		HttpResponse<String> response = session.post(RawHttp.toolsCall(42, "echo"));

		List<JsonNode> messages = messages(response);
		assertThat(messages).hasSize(1);
		assertThat(messages.get(0).path("id").asInt()).isEqualTo(42);
		assertThat(messages.get(0).at("/error/code").asInt()).isEqualTo(-32603);
		assertThat(messages.get(0).toString()).doesNotContain("db-7");
	}

	@Test
	void outcomeTheStageDoesNotAllowIsContained() {
		script.on("first", Stage.REMOTE_MESSAGE, message -> Outcome.respond(Map.of("x", 1)));

		HttpResponse<String> response = http().send(http().post("sdk-json", RawHttp.toolsCall(43, "echo")));

		assertGenericInternalError(response, 43);
		assertThat(CapturedLogs.all()).anySatisfy(line -> assertThat(line).contains("Interceptor 'first'")
			.contains("which the remote-message stage does not allow"));
	}

	private static void assertGenericInternalError(HttpResponse<String> response, int id) {
		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode body = RawHttp.json(response.body());
		assertThat(body.path("id").asInt()).isEqualTo(id);
		assertThat(body.at("/error/code").asInt()).isEqualTo(-32603);
		assertThat(body.at("/error/message").asText()).isEqualTo("Internal error: the relay could not process this message");
		assertThat(response.body()).doesNotContain("hunter2").doesNotContain("Exception");
	}

}
