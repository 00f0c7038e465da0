package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Mono;

/**
 * Every message meets its stage, once: no shape of a client's body pairs an answer with the wrong request, or carries
 * a request past its request stage; no answer of the upstream's reaches the client without the stage of the request it
 * answers.
 */
class OneStagePerMessageTest extends InterceptorIntegrationTest {

	@Test
	void aBatchWhoseRequestsShareAnIdIsRefusedAndNothingGoesUpstream() {
		HttpResponse<String> response = http().send(http().post("scripted-tools",
				"[{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"},{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}]"));

		assertThat(response.statusCode()).isEqualTo(400);
		JsonNode error = RawHttp.json(response.body());
		assertThat(error.at("/error/code").asInt()).isEqualTo(-32600);
		assertThat(error.at("/error/message").asText()).as("the error names the id").contains("id 7");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing of the batch went upstream").isEmpty();
		assertThat(script.calls()).as("no stage saw a message of it").isEmpty();
	}

	@Test
	void aBatchWhoseRequestsShareAnIdIsRefusedBeforeTheSdkServer() {
		McpSession session = session("sdk-tools");
		upstream.clearSeen();

		HttpResponse<String> response = session.post("[{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"}}},"
				+ "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}]");

		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(RawHttp.json(response.body()).at("/error/message").asText()).contains("id 8");
		assertThat(upstream.seen()).as("nothing of the batch went upstream")
			.noneMatch(seen -> seen.method().equals("POST"));
	}

	@ParameterizedTest(name = "a {0} without an id is refused, not forwarded")
	@ValueSource(strings = { "tools/call", "prompts/get", "resources/read", "tools/list", "initialize",
			"sampling/createMessage" })
	void aNotificationNamingARequestMethodIsRefusedNotForwarded(String method) {
		HttpResponse<String> response = http().send(http().post("scripted-tools", "{\"jsonrpc\":\"2.0\",\"method\":\""
				+ method + "\",\"params\":{\"name\":\"secret_admin\",\"arguments\":{\"_tenant\":\"other\"}}}"));

		assertThat(response.statusCode()).as("a refused notification: 400, id-less").isEqualTo(400);
		JsonNode error = RawHttp.json(response.body());
		assertThat(error.get("id").isNull()).isTrue();
		assertThat(error.at("/error/code").asInt()).isEqualTo(-32600);
		assertThat(error.at("/error/message").asText()).contains(method).contains("id");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("a generic JSON-RPC server would execute it").isEmpty();
	}

	@Test
	void aToolsCallNotificationInABatchIsAnsweredAndTheRestGoesOn() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.sendString(Mono.just("[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]")));

		HttpResponse<String> response = http().send(http().post("scripted-tools",
				"[{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"secret_admin\"}},"
						+ "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"));

		assertThat(TestUpstreams.SCRIPTED.lastSeen().body()).as("only the ping went")
			.isEqualTo("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
		assertThat(messages(response)).extracting(answer -> answer.path("id").asText("null") + " "
				+ answer.at("/error/code").asText("result"))
			.containsExactlyInAnyOrder("null -32600", "1 result");
	}

	@Test
	void aToolsCallNotificationNeverReachesTheSdkServer() {
		McpSession session = session("sdk-tools");
		upstream.clearSeen();

		HttpResponse<String> response = session.post("{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"secret_admin\",\"arguments\":{\"message\":\"hi\"}}}");

		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(upstream.seen()).noneMatch(seen -> seen.method().equals("POST"));
	}

}
