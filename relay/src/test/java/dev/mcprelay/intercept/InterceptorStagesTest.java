package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.InterceptorScript;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * Each stage sees the messages it is for, and only those, on the JSON and the SSE response path alike; interceptors
 * of a stage run in order, and the first that stops the chain ends it.
 */
class InterceptorStagesTest extends InterceptorIntegrationTest {

	@ParameterizedTest(name = "{0}: every stage fires for its messages and not for others ({1} answers)")
	@CsvSource({ "sdk, text/event-stream", "sdk-json, application/json" })
	void everyStageFiresForItsMessagesAndNotForOthers(String server, String answerType) {
		McpSession session = session(server);
		List<String> requests = List.of(
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
				"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"}}}",
				"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"prompts/list\"}",
				"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"prompts/get\",\"params\":{\"name\":\"greeting\",\"arguments\":{\"name\":\"Ada\"}}}",
				"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/list\"}",
				"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/templates/list\"}",
				"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/read\",\"params\":{\"uri\":\"memo://one\"}}",
				"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}",
				"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"no_such_tool\",\"arguments\":{}}}");
		for (String request : requests) {
			HttpResponse<String> response = session.post(request);
			assertThat(response.statusCode()).as(request).isEqualTo(200);
			assertThat(response.headers().firstValue("Content-Type")).as("the path this test exercises")
				.hasValueSatisfying(type -> assertThat(type).startsWith(answerType));
		}

		assertThat(script.seenBy("first")).as("the stages, in the order the messages met them").containsExactly(
				"user-request initialize", "initialize-request initialize", "remote-message initialize",
				"initialize-response initialize",
				"user-request notifications/initialized", "client-notification notifications/initialized",
				"user-request tools/list", "tools-list-request tools/list", "remote-message tools/list",
				"tools-list-response tools/list",
				"user-request tools/call", "tools-call-request tools/call", "remote-message tools/call",
				"tools-call-response tools/call",
				"user-request prompts/list", "prompts-list-request prompts/list", "remote-message prompts/list",
				"prompts-list-response prompts/list",
				"user-request prompts/get", "prompts-get-request prompts/get", "remote-message prompts/get",
				"prompts-get-response prompts/get",
				"user-request resources/list", "resources-list-request resources/list",
				"remote-message resources/list", "resources-list-response resources/list",
				"user-request resources/templates/list", "resource-templates-list-request resources/templates/list",
				"remote-message resources/templates/list", "resource-templates-list-response resources/templates/list",
				"user-request resources/read", "resources-read-request resources/read",
				"remote-message resources/read", "resources-read-response resources/read",
				"user-request ping", "other-request ping", "remote-message ping", "other-response ping",
				"user-request tools/call", "tools-call-request tools/call", "remote-message tools/call",
				"error tools/call");
	}

	@Test
	void interceptorsOfAStageRunInOrder() {
		McpSession session = session("sdk-json");
		script.reset();

		session.post(RawHttp.toolsCall(1, "echo"));

		assertThat(script.calls()).extracting(call -> call.interceptor() + " " + call.stage())
			.as("first (order 10) before second (order 20), stage after stage")
			.containsExactly("first user-request", "second user-request", "first tools-call-request",
					"second tools-call-request", "first remote-message", "second remote-message",
					"first tools-call-response", "second tools-call-response");
	}

	@Test
	void theFirstInterceptorThatStopsTheChainEndsIt() {
		McpSession session = session("sdk-json");
		upstream.clearSeen();
		script.reset();
		script.on("first", Stage.TOOLS_CALL_REQUEST, call -> Outcome.reject(RejectError.policy("No calls today")));

		HttpResponse<String> response = session.post(RawHttp.toolsCall(1, "echo"));

		assertThat(RawHttp.json(response.body()).path("error").path("message").asText()).isEqualTo("No calls today");
		assertThat(script.calls()).extracting(InterceptorScript.Call::stage)
			.as("second never saw the rejected call, and nothing came back from upstream")
			.containsExactly("user-request", "user-request", "tools-call-request");
		assertThat(upstream.seen()).as("a rejected request is never forwarded").isEmpty();
	}

}
