package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;

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

}
