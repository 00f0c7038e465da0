package dev.mcprelay.proxy;

import static dev.mcprelay.proxy.BadRequestTest.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RelayIntegrationTest;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;

/**
 * Every way an upstream can fail or misbehave gets the client a clear JSON-RPC error (inline on a stream that has
 * started), lets go of the upstream connection, and leaves the relay serving. The scripted server has 1s timeouts
 * and a 64KB cap.
 */
class UpstreamFaultTest extends RelayIntegrationTest {

	private static final String NOTIFICATION = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"working\"}}";

	@BeforeEach
	void clear() {
		TestUpstreams.SCRIPTED.clear();
	}

	@AfterEach
	void relayStillServes() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(202).send());
		HttpResponse<String> ok = http().send(http().post("scripted", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
		assertThat(ok.statusCode()).as("the relay keeps serving after the fault").isEqualTo(202);
	}

	@ParameterizedTest(name = "an empty 2xx JSON answer to {0} is taken as accepted")
	// (an answer under an id the relay did not give, as {"id":9,"result":{}}, is refused before it goes upstream:
	// ServerRequestIdsThroughRelayTest)
	@ValueSource(strings = { NOTIFICATION,
			"[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}]" })
	void anEmptyAnswerToWhatAwaitsNoAnswerIsAccepted(String body) {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.header("Mcp-Session-Id", "s-1")
			.send());

		HttpResponse<String> response = http().send(http().post("scripted", body));

		assertThat(response.statusCode()).as("nothing awaited an answer: accepted").isEqualTo(202);
		assertThat(response.body()).isEmpty();
		assertThat(response.headers().firstValue("Mcp-Session-Id")).hasValue("s-1");
	}

	@Test
	void anEmptyAnswerToARequestIsStillAnInvalidResponse() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.send());

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(5, "echo")));

		assertError(response, 502, -32603, "upstream_invalid_response");
		assertThat(RawHttp.json(response.body()).get("id").asInt()).isEqualTo(5);
	}

	@Test
	void refusedConnectionIs502WithTheRequestId() {
		HttpResponse<String> response = http().send(http().post("refused", RawHttp.toolsCall(7, "echo")));

		assertError(response, 502, -32603, "upstream_unreachable");
		JsonNode body = RawHttp.json(response.body());
		assertThat(body.get("id").asInt()).isEqualTo(7);
		assertThat(body.at("/error/message").asText()).contains("refused").contains("'refused'");
	}

	@Test
	void upstreamSlowBeforeHeadersIs504AndItsConnectionIsClosed() {
		CountDownLatch cancelled = new CountDownLatch(1);
		TestUpstreams.SCRIPTED.script((request, response) -> Mono.delay(Duration.ofSeconds(10))
			.doOnCancel(cancelled::countDown)
			.then(response.status(200).send()));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall("slow", "echo")));

		assertError(response, 504, -32603, "upstream_timeout");
		assertThat(RawHttp.json(response.body()).get("id").asText()).isEqualTo("slow");
		assertThat(RawHttp.json(response.body()).at("/error/message").asText()).contains("1s");
		assertThat(await(cancelled)).as("the relay closed the upstream connection").isTrue();
	}

	@Test
	void jsonBodyThatNeverFinishesIs504() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.sendString(Flux.concat(Mono.just("{\"jsonrpc\":\"2.0\","), Mono.never())));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(3, "echo")));

		assertError(response, 504, -32603, "upstream_timeout");
	}

	@Test
	void jsonResponseOverTheCapIs502() {
		String big = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"p\":\"" + "x".repeat(100 * 1024) + "\"}}";
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.sendString(Flux.fromIterable(chunks(big, 8192))));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(1, "echo")));

		assertError(response, 502, -32603, "upstream_response_too_large");
		assertThat(RawHttp.json(response.body()).at("/error/message").asText()).contains("64KB");
	}

	@Test
	void jsonResponseThatIsNotJsonRpcIs502() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.sendString(Mono.just("<html>oops</html>")));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(1, "echo")));

		assertError(response, 502, -32603, "upstream_invalid_response");
	}

	/**
	 * Cold review D, finding 6 (issue 39): JSON in UTF-16 or UTF-32 is well-formed UTF-8 (its zero bytes are ASCII), so
	 * a single answer was relayed unchecked and a batch or a list answer failed inside the relay (502
	 * {@code upstream_failed}, {@code Invalid 'offset' (-1)}); a UTF-8 byte-order mark was relayed as it came. RFC 8259
	 * has JSON exchanged as UTF-8 without one: each is an invalid response, on every path.
	 */
	@ParameterizedTest(name = "an answer in {0} is an invalid response")
	@ValueSource(strings = { "UTF-16LE", "UTF-16BE", "UTF-32BE", "UTF-8 with a byte-order mark" })
	void anAnswerThatIsNotUtf8JsonIsAnInvalidResponse(String encoding) {
		String single = "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}";
		String list = "{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"tools\":[{\"name\":\"echo\",\"inputSchema\":"
				+ "{\"type\":\"object\"}}]}}";
		String batch = "[" + list.replace("\"id\":6", "\"id\":7") + ",{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}]";
		for (String[] exchange : new String[][] { { RawHttp.toolsCall(5, "echo"), single },
				{ "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\"}", list },
				{ "[{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"},{\"jsonrpc\":\"2.0\",\"id\":8,"
						+ "\"method\":\"ping\"}]", batch } }) {
			byte[] answer = encoded(exchange[1], encoding);
			TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
				.header("Content-Type", "application/json")
				.sendByteArray(Mono.just(answer)));

			HttpResponse<String> response = http().send(http().post("scripted", exchange[0]));

			assertThat(response.statusCode()).as(exchange[0]).isEqualTo(502);
			List<JsonNode> errors = new ArrayList<>();
			RawHttp.json(response.body()).forEach(errors::add);
			if (!exchange[0].startsWith("[")) {
				errors = List.of(RawHttp.json(response.body()));
			}
			assertThat(errors).as(exchange[0]).isNotEmpty().allSatisfy(error -> {
				assertThat(error.at("/error/data/reason").asText()).isEqualTo("upstream_invalid_response");
				assertThat(error.at("/error/code").asInt()).isEqualTo(-32603);
			});
		}
	}

	@Test
	void anEventWhoseDataBeginsWithAByteOrderMarkIsAnInvalidResponse() {
		TestUpstreams.SCRIPTED.script((request, response) -> sse(response)
			.sendString(Flux.just(event(NOTIFICATION), event("\uFEFF" + NOTIFICATION))));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(8, "x")));

		List<JsonNode> events = dataOf(response.body());
		assertThat(events).hasSize(2);
		assertThat(events.get(1).at("/error/data/reason").asText()).isEqualTo("upstream_invalid_response");
		assertThat(response.body()).as("the event with the mark is not passed on").doesNotContain("\uFEFF");
	}

	private static byte[] encoded(String json, String encoding) {
		if (encoding.startsWith("UTF-8")) {
			byte[] text = json.getBytes(StandardCharsets.UTF_8);
			byte[] marked = new byte[text.length + 3];
			marked[0] = (byte) 0xEF;
			marked[1] = (byte) 0xBB;
			marked[2] = (byte) 0xBF;
			System.arraycopy(text, 0, marked, 3, text.length);
			return marked;
		}
		return json.getBytes(java.nio.charset.Charset.forName(encoding));
	}

	@ParameterizedTest(name = "status {0} is relayed with its body and headers")
	@ValueSource(ints = { 400, 401, 404, 405, 500, 503 })
	void errorStatusesAreRelayedUntouched(int status) {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(status)
			.header("Content-Type", "text/plain")
			.header("X-Upstream-Reason", "because")
			.sendString(Mono.just("upstream says " + status)));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(1, "echo")));

		assertThat(response.statusCode()).isEqualTo(status);
		assertThat(response.body()).isEqualTo("upstream says " + status);
		assertThat(response.headers().firstValue("X-Upstream-Reason")).hasValue("because");
		assertThat(response.headers().firstValue("Content-Type")).hasValue("text/plain");
	}

	@Test
	void jsonBodyOn404ThatIsNoJsonRpcIsReplacedByTheRelaysErrorWithTheStatus() {
		// a JSON body under a 4xx that holds no JSON-RPC error for the request is not relayed as it came: the relay
		// cannot tell what a lenient client would read in it (cold review I), so the request gets its own answer
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(404)
			.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"not\":\"json-rpc\"}")));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(1, "echo")));

		assertThat(response.statusCode()).isEqualTo(404);
		JsonNode answer = RawHttp.json(response.body());
		assertThat(answer.get("id").asInt()).isEqualTo(1);
		assertThat(answer.at("/error/data/reason").asText()).isEqualTo("upstream_error_status");
	}

	@Test
	void postStreamThatStallsEndsWithAnErrorEventForThePendingRequest() {
		CountDownLatch cancelled = new CountDownLatch(1);
		TestUpstreams.SCRIPTED.script((request, response) -> sse(response)
			.sendString(Flux.concat(Mono.just(event(NOTIFICATION)), Mono.<String>never()).doOnCancel(cancelled::countDown)));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(42, "slow")));

		assertThat(response.statusCode()).isEqualTo(200);
		List<JsonNode> events = dataOf(response.body());
		assertThat(events).hasSize(2);
		assertThat(events.get(0).get("method").asText()).as("events before the stall are relayed").isEqualTo("notifications/message");
		assertThat(events.get(1).get("id").asInt()).as("the error answers the pending request").isEqualTo(42);
		assertThat(events.get(1).at("/error/data/reason").asText()).isEqualTo("upstream_stream_idle");
		assertThat(await(cancelled)).as("the upstream exchange was closed").isTrue();
	}

	@Test
	void keepaliveCommentsCountAsActivity() {
		String result = "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[]}}";
		TestUpstreams.SCRIPTED.script((request, response) -> sse(response)
			.sendString(Flux.interval(Duration.ofMillis(300)).take(6).map(i -> ": keepalive\n\n")
				.concatWith(Mono.just(event(result)))));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(5, "slow")));

		List<JsonNode> events = dataOf(response.body());
		assertThat(events).as("1.8s of keepalives under a 1s idle bound, then the result").hasSize(1);
		assertThat(events.get(0).has("result")).isTrue();
		assertThat(response.body()).contains(": keepalive");
	}

	@Test
	void getStreamThatStallsEndsNormally() {
		TestUpstreams.SCRIPTED.script((request, response) -> sse(response)
			.sendString(Flux.concat(Mono.just(event(NOTIFICATION)), Mono.<String>never())));

		HttpResponse<String> response = http().send(http().request("scripted").header("Accept", "text/event-stream").GET());

		assertThat(response.statusCode()).isEqualTo(200);
		List<JsonNode> events = dataOf(response.body());
		assertThat(events).as("idle is the normal end of a GET stream: no error event").hasSize(1);
		assertThat(events.get(0).get("method").asText()).isEqualTo("notifications/message");
	}

	@Test
	void malformedEventEndsThePostStreamWithAnError() {
		TestUpstreams.SCRIPTED.script((request, response) -> sse(response)
			.sendString(Flux.just(event(NOTIFICATION), "data: this is not json\n\n", event(NOTIFICATION))));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(8, "x")));

		List<JsonNode> events = dataOf(response.body());
		assertThat(events).hasSize(2);
		assertThat(events.get(1).get("id").asInt()).isEqualTo(8);
		assertThat(events.get(1).at("/error/data/reason").asText()).isEqualTo("upstream_invalid_response");
		assertThat(response.body()).as("the malformed event is not passed on").doesNotContain("this is not json");
	}

	@Test
	void malformedEventEndsThePostStreamAfterTheEventsBeforeItInTheSameChunk() {
		TestUpstreams.SCRIPTED.script((request, response) -> sse(response)
			.sendString(Mono.just(event(NOTIFICATION) + "data: this is not json\n\n" + event(NOTIFICATION))));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(8, "x")));

		List<JsonNode> events = dataOf(response.body());
		assertThat(events).as("the notification before the malformed event, then the error").hasSize(2);
		assertThat(events.get(0).get("method").asText()).isEqualTo("notifications/message");
		assertThat(events.get(1).at("/error/data/reason").asText()).isEqualTo("upstream_invalid_response");
	}

	@Test
	void eventOverTheCapEndsThePostStreamWithAnError() {
		String huge = "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"p\":\"" + "x".repeat(100 * 1024) + "\"}}";
		TestUpstreams.SCRIPTED.script((request, response) -> sse(response)
			.sendString(Flux.fromIterable(chunks(event(huge), 4096))));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(9, "x")));

		List<JsonNode> events = dataOf(response.body());
		assertThat(events).hasSize(1);
		assertThat(events.get(0).get("id").asInt()).isEqualTo(9);
		assertThat(events.get(0).at("/error/data/reason").asText()).isEqualTo("upstream_response_too_large");
	}

	@Test
	void upstreamThatBreaksOffMidStreamGetsAnErrorEvent() {
		TestUpstreams.SCRIPTED.script((request, response) -> sse(response)
			.sendString(Flux.concat(Mono.just(event(NOTIFICATION)),
					Mono.delay(Duration.ofMillis(100)).then(Mono.error(new IllegalStateException("upstream crashed"))))));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(10, "x")));

		List<JsonNode> events = dataOf(response.body());
		assertThat(events).hasSize(2);
		assertThat(events.get(1).get("id").asInt()).isEqualTo(10);
		assertThat(events.get(1).at("/error/data/reason").asText()).isEqualTo("upstream_stream_broken");
	}

	@Test
	void streamThatEndsAfterItsResponseHasNoErrorEvent() {
		String result = "{\"jsonrpc\":\"2.0\",\"id\":11,\"result\":{}}";
		TestUpstreams.SCRIPTED.script((request, response) -> sse(response)
			.sendString(Flux.concat(Mono.just(event(result)), Mono.<String>never())));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(11, "x")));

		assertThat(dataOf(response.body())).as("the request was answered, so idle only ends the stream").hasSize(1);
	}

	@Test
	void clientThatDisconnectsMidStreamClosesTheUpstreamPromptly() throws Exception {
		CountDownLatch cancelled = new CountDownLatch(1);
		TestUpstreams.SCRIPTED.script((request, response) -> sse(response)
			.sendString(Flux.interval(Duration.ofMillis(100)).map(i -> event(NOTIFICATION)).doOnCancel(cancelled::countDown)));
		String body = RawHttp.toolsCall(12, "forever");

		try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
			OutputStream out = socket.getOutputStream();
			out.write(("POST /mcp/scripted HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
					+ "Accept: application/json, text/event-stream\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
				.getBytes(StandardCharsets.UTF_8));
			out.flush();
			InputStream in = socket.getInputStream();
			StringBuilder received = new StringBuilder();
			byte[] buffer = new byte[1024];
			while (!received.toString().contains("notifications/message")) {
				int n = in.read(buffer);
				assertThat(n).as("the stream delivers events before the client leaves").isPositive();
				received.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
			}
		}

		assertThat(await(cancelled)).as("the upstream stream was cancelled after the client went away").isTrue();
	}

	static HttpServerResponse sse(HttpServerResponse response) {
		return response.status(200).header("Content-Type", "text/event-stream");
	}

	static String event(String data) {
		return "event: message\ndata: " + data + "\n\n";
	}

	/** The JSON of every event's data in an SSE body. */
	static List<JsonNode> dataOf(String sseBody) {
		return RawHttp.sseData(sseBody);
	}

	static List<String> chunks(String text, int size) {
		List<String> chunks = new ArrayList<>();
		for (int i = 0; i < text.length(); i += size) {
			chunks.add(text.substring(i, Math.min(text.length(), i + size)));
		}
		return chunks;
	}

	private static boolean await(CountDownLatch latch) {
		try {
			return latch.await(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
