package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Mono;

/**
 * A batch (MCP 2025-03-26) is decided message by message: what interceptors answer is answered by the relay, the
 * rest goes upstream as a smaller batch, and the client gets every answer, none dropped. No SDK server accepts
 * batches any more, so the scripted upstream answers them.
 */
class BatchInterceptionTest extends InterceptorIntegrationTest {

	private static final String BATCH = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"blocked\"}},"
			+ "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}},"
			+ "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/blocked\"},"
			+ "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}]";

	/**
	 * The scripted upstream with the default timeouts: nothing here tests time, and the first exchange of a class can
	 * take seconds on a loaded machine (classes loaded, paths compiled), past {@code scripted}'s 2 s bounds.
	 */
	private static final String UNTIMED = "scripted-untimed";

	private static final String UPSTREAM_ANSWER = "[{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}]";

	@ParameterizedTest(name = "each message of a batch is decided on its own ({0} answer)")
	@ValueSource(strings = { "application/json", "text/event-stream" })
	void eachMessageOfABatchIsDecidedOnItsOwn(String answerType) {
		boolean sse = answerType.equals("text/event-stream");
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", answerType)
			.sendString(Mono.just(sse ? "event: message\ndata: " + UPSTREAM_ANSWER + "\n\n" : UPSTREAM_ANSWER)));
		script.on("first", Stage.TOOLS_CALL_REQUEST, call -> call.toolName().equals("blocked")
				? Outcome.reject(RejectError.policy("blocked tool")) : Outcome.proceed());
		script.on("first", Stage.CLIENT_NOTIFICATION, notification -> Outcome.reject(RejectError.policy("muted")));
		script.on("first", Stage.OTHER_REQUEST, request -> Outcome.respond(java.util.Map.of()));

		HttpResponse<String> response = http().send(http().post(UNTIMED, BATCH));

		assertThat(TestUpstreams.SCRIPTED.lastSeen().body()).as("only the message left to forward went, still a batch")
			.isEqualTo("[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}]");
		assertThat(response.statusCode()).isEqualTo(200);
		List<JsonNode> answers = messages(response);
		assertThat(answers).extracting(answer -> answer.path("id").asText("null") + " "
				+ (answer.has("result") ? "result" : answer.at("/error/message").asText()))
			.containsExactlyInAnyOrder("1 blocked tool", "2 result", "null muted", "3 result");
	}

	@Test
	void batchAnsweredEntirelyByInterceptorsNeverReachesTheUpstream() {
		script.on("first", Stage.USER_REQUEST, message -> message.id() == null
				? Outcome.reject(RejectError.policy("muted")) : Outcome.respond(java.util.Map.of("ok", true)));

		HttpResponse<String> response = http().send(http().post(UNTIMED, BATCH));

		assertThat(TestUpstreams.SCRIPTED.seen()).isEmpty();
		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode body = RawHttp.json(response.body());
		assertThat(body.isArray()).as("a batch is answered with a batch").isTrue();
		assertThat(body).hasSize(4);
	}

	@Test
	void answersOfTheRelayAreNotLostWhenTheUpstreamAccepts202() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(202).send());
		script.on("first", Stage.OTHER_REQUEST, request -> Outcome.respond(java.util.Map.of()));

		HttpResponse<String> response = http().send(http().post(UNTIMED,
				"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]"));

		assertThat(TestUpstreams.SCRIPTED.lastSeen().body())
			.isEqualTo("[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).isEqualTo("[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]");
	}

	@ParameterizedTest(name = "the relay's answers survive an upstream {0} beside them")
	@ValueSource(ints = { 400, 404, 500, 503 })
	void answersOfTheRelayAreNotLostWhenTheUpstreamRefusesTheRest(int status) {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(status)
			.header("Content-Type", "text/plain")
			.sendString(Mono.just("upstream says no")));
		script.on("first", Stage.TOOLS_CALL_REQUEST, call -> call.toolName().equals("blocked")
				? Outcome.reject(RejectError.policy("blocked tool")) : Outcome.proceed());
		script.on("first", Stage.OTHER_REQUEST, request -> Outcome.respond(java.util.Map.of()));

		HttpResponse<String> response = http().send(http().post(UNTIMED, BATCH));

		assertThat(response.statusCode()).as("the upstream's status is kept").isEqualTo(status);
		List<JsonNode> answers = messages(response);
		assertThat(answers).extracting(answer -> answer.path("id").asText("null") + " "
				+ (answer.has("result") ? "result" : answer.at("/error/data/reason").asText(answer.at("/error/message").asText())))
			.as("every request is answered: the relay's own answers and an error for the one the upstream refused")
			.containsExactlyInAnyOrder("1 blocked tool", "2 upstream_error_status", "3 result");
		assertThat(answers.stream().filter(answer -> answer.path("id").asInt() == 2).findFirst().orElseThrow()
			.at("/error/message").asText()).contains("HTTP " + status);
	}

	@Test
	void anUpstreamJsonRpcErrorBesideTheRelaysAnswersAnswersTheForwardedRequest() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(404)
			.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}")));
		script.on("first", Stage.OTHER_REQUEST, request -> Outcome.respond(java.util.Map.of()));

		HttpResponse<String> response = http().send(http().post(UNTIMED,
				"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}]"));

		assertThat(response.statusCode()).isEqualTo(404);
		assertThat(messages(response)).extracting(answer -> answer.path("id").asText() + " "
				+ (answer.has("result") ? "result" : answer.at("/error/code").asText() + " " + answer.at("/error/message").asText()))
			.as("the upstream's own id-less error answers the forwarded request, with its id")
			.containsExactlyInAnyOrder("1 result", "2 -32001 Session not found");
	}

}
