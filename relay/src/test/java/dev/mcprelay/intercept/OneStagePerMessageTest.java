package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.annotation.Autowired;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.CapturedLogs;

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

	@Autowired
	io.micrometer.core.instrument.MeterRegistry registry;

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
	void aBatchOfNotificationsWithAToolsCallAmongThemIsRefusedWholeAndNothingGoesUpstream() {
		HttpResponse<String> response = http().send(http().post("scripted-tools",
				"[{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"secret_admin\"}},"
						+ "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]"));

		assertThat(response.statusCode()).as("a POST of notifications not accepted").isEqualTo(400);
		assertThat(messages(response)).singleElement()
			.satisfies(error -> assertThat(error.at("/error/code").asInt()).isEqualTo(-32600));
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing of it went upstream, as the 400 says").isEmpty();
	}

	/**
	 * Cold review A's three batches: a POST that forwards no request and has any element refused, with an id or
	 * without, is refused whole (a client takes the 400 as its POST not accepted and may send its answers again).
	 */
	@ParameterizedTest(name = "a POST of answers with a refused element is refused whole: {0}")
	@ValueSource(strings = { "forged+invalid+answer", "invalid+answer", "forged+answer+denied call" })
	void aPostOfAnswersWithAnyRefusedElementIsRefusedWholeAndNothingGoesUpstream(String batch) {
		String forged = "{\"jsonrpc\":\"2.0\",\"id\":\"" + ServerRequestIds.PREFIX + "AAAA.BBBB\",\"result\":{}}";
		String invalid = "{\"jsonrpc\":\"2.0\",\"id\":\"q-9\"}";
		String answer = "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"result\":{\"ok\":true}}";
		String denied = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"secret_admin\"}}";
		String body = switch (batch) {
			case "forged+invalid+answer" -> "[" + forged + "," + invalid + "," + answer + "]";
			case "invalid+answer" -> "[" + invalid + "," + answer + "]";
			default -> "[" + forged + "," + answer + "," + denied + "]";
		};

		HttpResponse<String> response = http().send(http().post("scripted-tools", body));

		assertThat(response.statusCode()).as("a POST not accepted: the client may send its answer again").isEqualTo(400);
		// (srv-1, an id the relay did not give, is refused as well: unknown_request_id)
		assertThat(messages(response)).as("every refusal answered").hasSize(batch.equals("invalid+answer") ? 2 : 3)
			.allSatisfy(error -> assertThat(error.has("error")).isTrue());
		assertThat(TestUpstreams.SCRIPTED.seen()).as("the answer srv-1 did not go upstream, as the 400 says").isEmpty();
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

	private static final String SECRET_RESULT = "{\"content\":[{\"type\":\"text\",\"text\":\"the secret\"}]}";

	/** The first interceptor redacts every tools/call result, so an answer that skipped the stage shows. */
	private void redactToolResults() {
		script.on("first", Stage.TOOLS_CALL_RESPONSE, response -> {
			response.replaceResult(Map.of("content", List.of(Map.of("type", "text", "text", "[redacted]"))));
			return Outcome.proceed();
		});
	}

	@ParameterizedTest(name = "an answer whose id the upstream rounded meets the stage of the request it answers ({0})")
	@ValueSource(strings = { "application/json", "text/event-stream" })
	void anAnswerUnderARoundedIdMeetsTheStageOfTheRequestItAnswers(String answerType) {
		// What a JSON.parse upstream does to an id past 2^53: 9007199254740993 comes back as 9007199254740992.
		String answer = "{\"jsonrpc\":\"2.0\",\"id\":9007199254740992,\"result\":" + SECRET_RESULT + "}";
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", answerType)
			.sendString(Mono.just(answerType.equals("application/json") ? answer : "event: message\ndata: " + answer + "\n\n")));
		redactToolResults();

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(9007199254740993L, "echo")));

		List<JsonNode> answers = messages(response);
		assertThat(answers).hasSize(1);
		assertThat(answers.get(0).get("id").asLong()).as("the client gets the id it sent").isEqualTo(9007199254740993L);
		assertThat(answers.get(0).at("/result/content/0/text").asText()).isEqualTo("[redacted]");
	}

	@Test
	void aToolResultUnderAnotherIdIsNeverTakenAsTheAnswerOfTheOnePingWaiting() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.sendString(Mono.just("[{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":" + SECRET_RESULT + "},"
					+ "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]")));
		redactToolResults();

		HttpResponse<String> response = http().send(http().post("scripted", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"));

		assertThat(response.body()).as("the tool's output met no ping's stage").doesNotContain("the secret");
		assertThat(messages(response)).extracting(answer -> answer.get("id").asInt() + " "
				+ answer.at("/result/content/0/text").asText("-"))
			.as("an answer under an id the POST never sent answers nothing the client asked: dropped")
			.containsExactly("1 -");
	}

	@ParameterizedTest(name = "a stray answer between two answers of a POST is dropped ({0})")
	@ValueSource(strings = { "application/json", "text/event-stream" })
	void aStrayAnswerIsNeverTakenAsTheAnswerOfTheRequestStillWaiting(String answerType) {
		// a server that mixes up its answers: [call 1, call 2] gets 1, a stray under 99, then 2
		List<String> answers = List.of("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":" + SECRET_RESULT + "}",
				"{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"the stray secret\"}]}}",
				"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":" + SECRET_RESULT + "}");
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", answerType)
			.sendString(Mono.just(answerType.equals("application/json") ? "[" + String.join(",", answers) + "]"
					: answers.stream().map(answer -> "event: message\ndata: " + answer + "\n\n")
						.collect(java.util.stream.Collectors.joining()))));
		List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
		script.on("first", Stage.TOOLS_CALL_RESPONSE, response -> {
			seen.add(response.id() + " " + response.toolName() + ": " + response.result().at("/content/0/text").asText());
			response.replaceResult(Map.of("content", List.of(Map.of("type", "text", "text", "[redacted]"))));
			return Outcome.proceed();
		});

		HttpResponse<String> response = http().send(http().post("scripted", "[" + RawHttp.toolsCall(1, "whoami") + ","
				+ RawHttp.toolsCall(2, "echo") + "]"));

		assertThat(messages(response)).extracting(answer -> answer.get("id").asInt())
			.as("each request answered once, under its own id").containsExactly(1, 2);
		assertThat(response.body()).doesNotContain("secret");
		assertThat(seen).as("the echo's stage saw the echo's answer, not the stray")
			.containsExactly("1 whoami: the secret", "2 echo: the secret");
	}

	@Test
	void aSecondAnswerUnderTheIdOfAnAnsweredRequestIsDropped() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "text/event-stream")
			.sendString(Mono.just("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":" + SECRET_RESULT
					+ "}\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":"
					+ "\"text\",\"text\":\"the second secret\"}]}}\n\n")));
		redactToolResults();
		double before = dropped("scripted");

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(1, "echo")));

		assertThat(messages(response)).as("one answer per id").hasSize(1);
		assertThat(response.body()).doesNotContain("secret");
		assertThat(dropped("scripted") - before).isEqualTo(1);
	}

	@Test
	void anErrorWithoutAnIdAnswersTheOneRequestWaitingUnderItsId() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
					+ "\"message\":\"Invalid Request\"}}")));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall("call-1", "echo")));

		JsonNode answer = RawHttp.json(response.body());
		assertThat(answer.get("id").asText()).as("the server could not read the id; the client gets its own")
			.isEqualTo("call-1");
		assertThat(answer.at("/error/code").asInt()).isEqualTo(-32600);
		assertThat(script.seenBy("first")).contains("error tools/call");
	}

	@Test
	void aBatchWhoseIdsTheUpstreamWouldRoundToOneIsRefused() {
		HttpResponse<String> response = http().send(http().post("scripted-tools",
				"[{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"tools/list\"},"
						+ "{\"jsonrpc\":\"2.0\",\"id\":9007199254740992,\"method\":\"ping\"}]"));

		assertThat(response.statusCode()).isEqualTo(400);
		JsonNode error = RawHttp.json(response.body());
		assertThat(error.at("/error/code").asInt()).isEqualTo(-32600);
		assertThat(error.at("/error/message").asText()).as("the error names both ids")
			.contains("9007199254740993").contains("9007199254740992");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing of the batch went upstream").isEmpty();
	}

	@Test
	void anUnknownAnswerWhoseMethodCannotBeKnownIsDroppedLoggedAndCounted() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.sendString(Mono.just("[{\"jsonrpc\":\"2.0\",\"id\":\"forged\\nINFO line\",\"result\":{\"completion\":"
					+ "{\"values\":[\"the secret\"]}}},"
					+ "{\"jsonrpc\":\"2.0\",\"id\":77,\"error\":{\"code\":-1,\"message\":\"the secret\"}},"
					+ "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}},{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}]")));
		double before = dropped("scripted");
		int mark = CapturedLogs.all().size();

		HttpResponse<String> response = http().send(http().post("scripted", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
				+ "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]"));

		assertThat(response.body()).as("an answer no stage could be known for never reaches the client")
			.doesNotContain("the secret");
		assertThat(messages(response)).extracting(answer -> answer.get("id").asInt()).containsExactly(1, 2);
		assertThat(dropped("scripted") - before).isEqualTo(2);
		assertThat(CapturedLogs.since(mark)).anySatisfy(line -> assertThat(line).contains("scripted")
			.contains("forged\\nINFO line"));
		assertThat(CapturedLogs.since(mark)).noneMatch(line -> line.contains("forged\nINFO"));
	}

	@ParameterizedTest(name = "a tools/call result on a {0} meets the tools/call response stage")
	@ValueSource(strings = { "GET stream", "GET stream resumed with Last-Event-ID" })
	void aToolResultOnAGetStreamMeetsItsResponseStage(String how) {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "text/event-stream")
			.sendString(Mono.just("id: e-4\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":"
					+ SECRET_RESULT + "}\n\n"
					+ "id: e-5\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"hint\":\"no tool's\"}}\n\n"
					+ "id: e-6\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{}}\n\n"
					+ "id: e-7\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"content\":[{\"type\":"
					+ "\"text\",\"text\":\"the secret\"}],\"tools\":[]}}\n\n"
					+ "id: e-8\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":10,\"result\":{\"structuredContent\":"
					+ "{\"s\":\"the secret\"}}}\n\n")));
		redactToolResults();
		java.net.http.HttpRequest.Builder get = http().request("scripted").header("Accept", "text/event-stream");
		if (how.contains("Last-Event-ID")) {
			get.header("Last-Event-ID", "e-3");
		}

		String body = http().send(get.GET()).body();

		assertThat(body).doesNotContain("the secret");
		List<JsonNode> relayed = RawHttp.sseData(body);
		assertThat(relayed).extracting(answer -> answer.get("id").asInt())
			.as("a tool's result by its shape, and a result no tool's stage could see; not one whose shape could be a "
					+ "tool's without telling, nor a request without its id")
			.containsExactly(7, 8);
		assertThat(relayed.get(0).at("/result/content/0/text").asText()).isEqualTo("[redacted]");
		assertThat(script.seenBy("first")).as("the other met the stage that takes any method, its method unknown")
			.contains("tools-call-response tools/call", "other-response null");
		assertThat(body).as("a dropped event keeps its id, so resumption skips it").contains("id: e-6").contains("id: e-7")
			.contains("id: e-8");
	}

	@Test
	void answersOnAStreamResumedAfterThePostsStreamEndedMeetTheirRequestsStagesWithTheRequestAtHand() {
		// the server closes the POST's stream before answering (as it may); the client resumes it with Last-Event-ID
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "text/event-stream")
			.sendString(Mono.just(request.method().name().equals("POST")
					? "id: p-1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
							+ "\"params\":{\"level\":\"info\",\"data\":\"working\"}}\n\n"
					: "id: p-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"result\":" + SECRET_RESULT + "}\n\n"
							+ "id: p-3\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"r-2\",\"result\":{}}\n\n"
							+ "id: p-4\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"r-3\",\"result\":{\"completion\":"
							+ "{\"values\":[\"a\"]}}}\n\n"
							+ "id: p-5\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"r-4\",\"error\":{\"code\":-32000,"
							+ "\"message\":\"failed\"}}\n\n")));
		List<String> tools = new java.util.concurrent.CopyOnWriteArrayList<>();
		script.on("first", Stage.TOOLS_CALL_RESPONSE, response -> {
			tools.add(response.toolName());
			response.replaceResult(Map.of("content", List.of(Map.of("type", "text", "text", "[redacted]"))));
			return Outcome.proceed();
		});
		http().send(http().post("scripted", "[" + RawHttp.toolsCall("r-1", "echo")
				+ ",{\"jsonrpc\":\"2.0\",\"id\":\"r-2\",\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":\"r-3\","
				+ "\"method\":\"completion/complete\",\"params\":{}}," + RawHttp.toolsCall("r-4", "whoami") + "]")
			.header("Mcp-Session-Id", "s-resumed"));
		script.reset();
		script.on("first", Stage.TOOLS_CALL_RESPONSE, response -> {
			tools.add(response.toolName());
			response.replaceResult(Map.of("content", List.of(Map.of("type", "text", "text", "[redacted]"))));
			return Outcome.proceed();
		});

		String resumed = http().send(http().request("scripted")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", "s-resumed")
			.header("Last-Event-ID", "p-1")
			.GET()).body();

		assertThat(RawHttp.sseData(resumed)).extracting(answer -> answer.get("id").asText())
			.as("every request the POST's stream left unanswered gets its answer").containsExactly("r-1", "r-2", "r-3", "r-4");
		assertThat(resumed).doesNotContain("the secret");
		assertThat(tools).as("the tools/call stage knew the tool").containsExactly("echo");
		assertThat(script.seenBy("first")).as("each answer met the stage of its request's method")
			.contains("tools-call-response tools/call", "other-response ping", "other-response completion/complete",
					"error tools/call");

		String again = http().send(http().request("scripted")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", "s-resumed")
			.header("Last-Event-ID", "p-1")
			.GET()).body();
		assertThat(RawHttp.sseData(again)).extracting(answer -> answer.get("id").asText())
			.containsExactly("r-1", "r-2", "r-3", "r-4");
		assertThat(again).doesNotContain("the secret");
		assertThat(tools).as("a request is taken by its answer: replayed, the result meets its stage without it")
			.containsExactly("echo", null);
	}

	private double dropped(String server) {
		io.micrometer.core.instrument.Counter counter = registry.find("mcp.relay.upstream.unmatched")
			.tag("server", server)
			.tag("handling", "dropped")
			.counter();
		return counter == null ? 0 : counter.count();
	}

}
