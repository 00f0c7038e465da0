package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * A server-to-client request an interceptor rejects is answered to the server, under the server's id, and never
 * reaches the client as an error it could take for the answer to one of its own requests. The SDK server's
 * {@code ask-model} tool sends {@code sampling/createMessage} on the call's stream and reports what it got back.
 */
class ServerRequestRejectionTest extends InterceptorIntegrationTest {

	private static final String REASON = "sampling is not allowed through this relay";

	@ParameterizedTest(name = "{0}: the server gets the rejection, the client never sees the server's id")
	@ValueSource(strings = { "sdk", "sdk-notify" })
	void aRejectedSamplingRequestIsAnsweredUpstreamAndNeverReachesTheClient(String server) {
		script.on("first", Stage.REMOTE_MESSAGE, message -> "sampling/createMessage".equals(message.method())
				? Outcome.reject(RejectError.policy(REASON)) : Outcome.proceed());
		McpSession session = McpSession.open(http(), server, "{\"sampling\":{}}");

		HttpResponse<String> response = session.post(RawHttp.toolsCall(5, "ask-model"));

		List<JsonNode> messages = messages(response);
		JsonNode result = messages.get(messages.size() - 1);
		assertThat(result.path("id").asInt()).as("the stream ends with the tool's own answer").isEqualTo(5);
		assertThat(result.at("/result/isError").asBoolean()).isTrue();
		assertThat(result.at("/result/content/0/text").asText()).as("the tool saw the rejection as its answer")
			.contains(REASON);
		assertThat(messages).as("no sampling request and no answer to it reach the client")
			.noneMatch(message -> "sampling/createMessage".equals(message.path("method").asText()))
			.allMatch(message -> !message.has("id") || message.path("id").asInt() == 5);

		List<JsonNode> answered = upstream.seen()
			.stream()
			.filter(seen -> seen.method().equals("POST"))
			.map(dev.mcprelay.testsupport.SdkMcpUpstream.Seen::json)
			.filter(body -> body.has("error"))
			.toList();
		assertThat(answered).as("the server got one error response, with its own request id").hasSize(1);
		assertThat(answered.get(0).at("/error/message").asText()).isEqualTo(REASON);
		assertThat(answered.get(0).at("/error/code").asInt()).isEqualTo(-32000);

		List<JsonNode> notices = messages.stream()
			.filter(message -> "notifications/message".equals(message.path("method").asText()))
			.toList();
		if (server.equals("sdk-notify")) {
			assertThat(notices).as("configured to notify: one warning names the rejected method").singleElement()
				.satisfies(notice -> {
					assertThat(notice.at("/params/level").asText()).isEqualTo("warning");
					assertThat(notice.at("/params/data/rejectedMethod").asText()).isEqualTo("sampling/createMessage");
				});
		}
		else {
			assertThat(notices).as("by default the client sees nothing of it").isEmpty();
		}
	}

}
