package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.UpstreamError;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * The error stage sees every request that got no result (an upstream JSON-RPC error, a timeout, an idle stream, a
 * refused connection) and may turn it into a result or into another error.
 */
class ErrorStageTest extends InterceptorIntegrationTest {

	private final List<UpstreamError> seen = new CopyOnWriteArrayList<>();

	private void replaceEveryErrorWithAFriendlyResult() {
		script.on("first", Stage.ERROR, error -> {
			seen.add(error);
			return Outcome.replaceError(McpSchema.CallToolResult.builder()
				.addTextContent("The tool is not available right now; try again later.")
				.isError(true)
				.build());
		});
	}

	@ParameterizedTest(name = "{0}: an upstream JSON-RPC error becomes a result")
	@ValueSource(strings = { "sdk", "sdk-json" })
	void upstreamJsonRpcErrorBecomesAResult(String server) {
		McpSession session = session(server);
		replaceEveryErrorWithAFriendlyResult();

		HttpResponse<String> response = session.post(RawHttp.toolsCall(1, "no_such_tool"));

		assertThat(response.statusCode()).isEqualTo(200);
		assertFriendlyResult(messages(response), 1);
		assertThat(seen).singleElement().satisfies(error -> {
			assertThat(error.isUpstreamFailure()).as("the upstream answered").isFalse();
			assertThat(error.method()).isEqualTo("tools/call");
			assertThat(((ToolsCallRequest) error.request()).toolName()).isEqualTo("no_such_tool");
			assertThat(error.errorMessage()).isNotBlank();
		});
	}

	@Test
	void upstreamTimeoutOnTheJsonPathBecomesAResultWith200() {
		replaceEveryErrorWithAFriendlyResult();

		HttpResponse<String> response = http().send(http().post("sdk-json-slow", RawHttp.toolsCall(2, "slow")));

		assertThat(response.statusCode()).as("every failed request got a result").isEqualTo(200);
		assertFriendlyResult(messages(response), 2);
		assertThat(seen).singleElement().satisfies(error -> {
			assertThat(error.failureReason()).isEqualTo("upstream_timeout");
			assertThat(error.code()).isEqualTo(-32603);
		});
	}

	@Test
	void idleStreamOnTheSsePathBecomesAResultEvent() {
		McpSession session = session("sdk-idle");
		replaceEveryErrorWithAFriendlyResult();

		// The progress tool holds its stream open after the first event: the relay's 1s idle bound ends it.
		HttpResponse<String> response = session.post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"progress\",\"arguments\":{},\"_meta\":{\"progressToken\":\"t\"}}}");

		List<JsonNode> messages = messages(response);
		assertThat(messages).extracting(message -> message.path("method").asText("response"))
			.containsExactly("notifications/progress", "response");
		assertFriendlyResult(messages.subList(1, 2), 3);
		assertThat(seen).singleElement()
			.satisfies(error -> assertThat(error.failureReason()).isEqualTo("upstream_stream_idle"));
	}

	@Test
	void refusedConnectionBecomesAResultWith200() {
		replaceEveryErrorWithAFriendlyResult();

		HttpResponse<String> response = http().send(http().post("refused", RawHttp.toolsCall(4, "echo")));

		assertThat(response.statusCode()).isEqualTo(200);
		assertFriendlyResult(messages(response), 4);
		assertThat(seen).singleElement()
			.satisfies(error -> assertThat(error.failureReason()).isEqualTo("upstream_unreachable"));
	}

	@Test
	void errorStageMayAnswerWithItsOwnErrorAndTheFailureKeepsItsStatus() {
		script.on("first", Stage.ERROR, error -> Outcome.reject(RejectError.policy("The search service is down")));

		HttpResponse<String> response = http().send(http().post("refused", RawHttp.toolsCall(5, "echo")));

		assertThat(response.statusCode()).isEqualTo(502);
		JsonNode body = RawHttp.json(response.body());
		assertThat(body.path("id").asInt()).isEqualTo(5);
		assertThat(body.at("/error/message").asText()).isEqualTo("The search service is down");
	}

	@Test
	void errorThatNoInterceptorReplacesIsRelayedAsTheUpstreamSentIt() {
		McpSession session = session("sdk-json");

		HttpResponse<String> direct = http().send(java.net.http.HttpRequest.newBuilder(
				java.net.URI.create(upstream.url("/stateless")))
			.header("Content-Type", "application/json")
			.header("Accept", RawHttp.ACCEPT_BOTH)
			.POST(java.net.http.HttpRequest.BodyPublishers.ofString(RawHttp.toolsCall(6, "no_such_tool"))));
		HttpResponse<String> relayed = session.post(RawHttp.toolsCall(6, "no_such_tool"));

		assertThat(relayed.body()).isEqualTo(direct.body());
		assertThat(script.seenBy("first")).contains("error tools/call");
	}

	@Test
	void aNonJsonRpc5xxMeetsTheErrorStageWithItsStatusAndTypedRequestAndCanBecomeAResult() {
		dev.mcprelay.testsupport.TestUpstreams.SCRIPTED.script((request, response) -> response.status(503)
			.header("Content-Type", "text/plain")
			.sendString(reactor.core.publisher.Mono.just("down for maintenance")));
		replaceEveryErrorWithAFriendlyResult();

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(7, "search")));

		assertThat(response.statusCode()).isEqualTo(200);
		assertFriendlyResult(messages(response), 7);
		assertThat(seen).singleElement().satisfies(error -> {
			assertThat(error.httpStatus()).isEqualTo(503);
			assertThat(error.failureReason()).isEqualTo("upstream_error_status");
			assertThat(error.request(ToolsCallRequest.class).toolName()).isEqualTo("search");
			assertThat(error.errorMessage()).contains("HTTP 503");
		});
	}

	@Test
	void aRefusalNoInterceptorReplacesIsRelayedAsItCame() {
		dev.mcprelay.testsupport.TestUpstreams.SCRIPTED.script((request, response) -> response.status(429)
			.header("Content-Type", "text/plain")
			.header("Retry-After", "7")
			.sendString(reactor.core.publisher.Mono.just("slow down")));
		script.on("first", Stage.ERROR, error -> {
			seen.add(error);
			return Outcome.proceed();
		});

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(8, "search")));

		assertThat(response.statusCode()).isEqualTo(429);
		assertThat(response.body()).isEqualTo("slow down");
		assertThat(response.headers().firstValue("Retry-After")).hasValue("7");
		assertThat(seen).singleElement().satisfies(error -> assertThat(error.httpStatus()).isEqualTo(429));
	}

	private static void assertFriendlyResult(List<JsonNode> messages, int id) {
		assertThat(messages).singleElement().satisfies(message -> {
			assertThat(message.path("id").asInt()).isEqualTo(id);
			assertThat(message.has("error")).isFalse();
			assertThat(message.at("/result/content/0/text").asText()).startsWith("The tool is not available");
			assertThat(message.at("/result/isError").asBoolean()).isTrue();
		});
	}

}
