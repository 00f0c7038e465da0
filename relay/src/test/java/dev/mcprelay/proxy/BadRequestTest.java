package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RelayIntegrationTest;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Mono;

/** Every bad client request gets a clear JSON-RPC error with a fitting status, and nothing reaches the upstream. */
class BadRequestTest extends RelayIntegrationTest {

	@BeforeEach
	void answerEverythingOk() {
		TestUpstreams.SCRIPTED.clear();
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(202).send());
	}

	@AfterEach
	void relayStillServes() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(202).send());
		HttpResponse<String> ok = http().send(http().post("scripted", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
		assertThat(ok.statusCode()).as("the relay keeps serving after a bad request").isEqualTo(202);
	}

	@Test
	void malformedJsonIsAParseErrorWithNullId() {
		HttpResponse<String> response = http().send(http().post("scripted", "{\"jsonrpc\":\"2.0\",\"id\":1,"));

		assertError(response, 400, -32700, "parse_error");
		assertThat(RawHttp.json(response.body()).get("id").isNull()).as("no id can be read from malformed JSON").isTrue();
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "{\"hello\":1}", "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", "[]", "42",
			"{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}", "{\"jsonrpc\":\"2.0\",\"id\":1}",
			"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":3}" })
	void jsonThatIsNotJsonRpcIsAnInvalidRequest(String body) {
		HttpResponse<String> response = http().send(http().post("scripted", body));

		assertError(response, 400, -32600, "invalid_request");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	@ParameterizedTest(name = "a number out of range ({0}) is a parse error, never a 500")
	@ValueSource(strings = { "{\"jsonrpc\":\"2.0\",\"id\":1e9999999999,\"method\":\"ping\"}",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"n\":-1E-9999999999}}}" })
	void aNumberOutOfRangeIsAParseError(String body) {
		int logsBefore = dev.mcprelay.testsupport.CapturedLogs.all().size();

		HttpResponse<String> response = http().send(http().post("scripted", body));

		assertError(response, 400, -32700, "parse_error");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
		assertThat(dev.mcprelay.testsupport.CapturedLogs.since(logsBefore))
			.as("a client's bad input is no ERROR in the log").noneMatch(line -> line.startsWith("ERROR"));
	}

	@ParameterizedTest(name = "ill-formed UTF-8 ({0}) is a parse error: the relay and the upstream would read different text")
	@ValueSource(strings = { "c1ae", "c0af", "eda080", "ff" })
	void illFormedUtf8IsAParseError(String hex) {
		byte[] prefix = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi".getBytes(java.nio.charset.StandardCharsets.UTF_8);
		byte[] bad = java.util.HexFormat.of().parseHex(hex);
		byte[] suffix = "ng\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
		byte[] body = new byte[prefix.length + bad.length + suffix.length];
		System.arraycopy(prefix, 0, body, 0, prefix.length);
		System.arraycopy(bad, 0, body, prefix.length, bad.length);
		System.arraycopy(suffix, 0, body, prefix.length + bad.length, suffix.length);

		HttpResponse<String> response = http().send(http().request("scripted")
			.header("Content-Type", "application/json")
			.header("Accept", RawHttp.ACCEPT_BOTH)
			.POST(HttpRequest.BodyPublishers.ofByteArray(body)));

		assertError(response, 400, -32700, "parse_error");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	@ParameterizedTest(name = "an unreadable Content-Type ({0}) is the client's mistake: 415, nothing forwarded")
	@ValueSource(strings = { ";;;", "application/", "/json", "text/plain; charset=\"" })
	void anUnreadableContentTypeIs415(String contentType) {
		HttpResponse<String> response = http().send(http().request("scripted")
			.header("Content-Type", contentType)
			.header("Accept", RawHttp.ACCEPT_BOTH)
			.POST(HttpRequest.BodyPublishers.ofString(RawHttp.toolsCall(1, "echo"))));

		assertError(response, 415, -32600, "unsupported_media_type");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	@Test
	void emptyBodyIsAParseError() {
		HttpResponse<String> response = http().send(http().post("scripted", ""));

		assertError(response, 400, -32700, "parse_error");
	}

	@Test
	void bodyOverTheCapIs413WhenContentLengthSaysSo() {
		String big = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"p\":\"" + "a".repeat(70 * 1024) + "\"}}";

		HttpResponse<String> response = http().send(http().post("scripted", big));

		assertError(response, 413, -32600, "request_too_large");
		assertThat(RawHttp.json(response.body()).at("/error/message").asText()).contains("64KB");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	@Test
	void chunkedBodyOverTheCapIs413() {
		byte[] big = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"p\":\"" + "a".repeat(70 * 1024) + "\"}}")
			.getBytes();
		HttpRequest.Builder chunked = http().request("scripted")
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big)));

		HttpResponse<String> response = http().send(chunked);

		assertError(response, 413, -32600, "request_too_large");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	@Test
	void unknownServerIs404WithoutNamingTheConfiguredServers() {
		HttpResponse<String> response = http().send(http().post("no-such-server", RawHttp.toolsCall(1, "echo")));

		assertError(response, 404, -32600, "unknown_server");
		assertThat(RawHttp.json(response.body()).at("/error/message").asText()).contains("no-such-server")
			.as("a caller learns nothing of which servers exist")
			.doesNotContain("sdk")
			.doesNotContain("scripted")
			.doesNotContain("refused");
	}

	@ParameterizedTest(name = "{0} {1} answers in JSON-RPC")
	@org.junit.jupiter.params.provider.CsvSource({ "POST,/mcp/a/b,not_found", "GET,/mcp/a/b/c,not_found",
			"POST,/nothing/here/at/all,not_found", "GET,/favicon.ico,not_found", "POST,/,not_found",
			"POST,/mcp,no_default_server", "GET,/mcp,no_default_server", "POST,/no-such-server/mcp,unknown_server",
			"GET,/actuator/env,not_found" })
	void everyPathAnswersInJsonRpc(String method, String path, String reason) {
		HttpResponse<String> response = http().send(HttpRequest.newBuilder(
				java.net.URI.create("http://127.0.0.1:" + port + path))
			.header("Content-Type", "application/json")
			.header("Accept", RawHttp.ACCEPT_BOTH)
			.method(method, method.equals("POST") ? HttpRequest.BodyPublishers.ofString(RawHttp.toolsCall(1, "echo"))
					: HttpRequest.BodyPublishers.noBody()));

		assertError(response, 404, -32600, reason);
		assertThat(response.body()).as("no server id is named to a caller")
			.doesNotContain("\"sdk").doesNotContain("scripted").doesNotContain("Whitelabel").doesNotContain("\"path\"");
	}

	@Test
	void unknownServerOnGetAndDeleteIs404Too() {
		assertThat(http().send(http().request("nope").GET()).statusCode()).isEqualTo(404);
		assertThat(http().send(http().request("nope").DELETE()).statusCode()).isEqualTo(404);
	}

	@Test
	void missingRequiredInboundHeaderIs400NamingIt() {
		HttpResponse<String> response = http().send(http().post("scripted-headers", RawHttp.toolsCall("r-1", "echo")));

		assertError(response, 400, -32600, "missing_required_header");
		JsonNode body = RawHttp.json(response.body());
		assertThat(body.get("id").asText()).as("the request's id is kept").isEqualTo("r-1");
		assertThat(body.at("/error/message").asText()).contains("X-Client-Tenant");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	@ParameterizedTest(name = "a required inbound header sent as \"{0}\" counts as missing")
	@ValueSource(strings = { "", " ", "\t" })
	void anEmptyRequiredInboundHeaderCountsAsMissing(String value) {
		HttpResponse<String> response = http().send(http().post("scripted-headers", RawHttp.toolsCall("r-2", "echo"))
			.header("X-Client-Tenant", value));

		assertError(response, 400, -32600, "missing_required_header");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	@Test
	void aBatchWithAMalformedElementAnswersEachElementAndForwardsTheGoodOnes() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.sendString(Mono.just("[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]")));

		HttpResponse<String> response = http().send(http().post("scripted", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
				+ "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":7},\"junk\",{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}]"));

		assertThat(TestUpstreams.SCRIPTED.lastSeen().body()).as("only the valid elements went, still a batch")
			.isEqualTo("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}]");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(RawHttp.messagesOf(response)).extracting(answer -> answer.get("id").toString() + " "
				+ (answer.has("result") ? "result" : answer.at("/error/code").asText()))
			.as("the upstream's answer and an error for each malformed element, with its id when it had one")
			.containsExactlyInAnyOrder("1 result", "2 -32600", "null -32600");
		assertThat(RawHttp.messagesOf(response)).filteredOn(answer -> answer.has("error"))
			.as("each element's error carries its reason, as a single message's does")
			.allSatisfy(answer -> assertThat(answer.at("/error/data/reason").asText()).isEqualTo("invalid_request"));
	}

	@Test
	void aBatchOfOnlyMalformedElementsIs400WithAnErrorForEach() {
		HttpResponse<String> response = http().send(http().post("scripted",
				"[{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"\"},{\"id\":3,\"method\":\"ping\"}]"));

		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(RawHttp.messagesOf(response)).extracting(answer -> answer.get("id").toString())
			.containsExactly("\"a\"", "3");
		assertThat(RawHttp.messagesOf(response))
			.allSatisfy(answer -> assertThat(answer.at("/error/data/reason").asText()).isEqualTo("invalid_request"));
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	@Test
	void disallowedOriginIs403AndAllowedOriginPasses() {
		HttpResponse<String> refused = http().send(http().post("scripted", RawHttp.toolsCall(1, "echo"))
			.header("Origin", "https://evil.example.net"));
		assertError(refused, 403, -32600, "origin_not_allowed");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();

		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")));
		HttpResponse<String> allowed = http().send(http().post("scripted", RawHttp.toolsCall(1, "echo"))
			.header("Origin", "https://app.example.com"));
		assertThat(allowed.statusCode()).isEqualTo(200);
		assertThat(TestUpstreams.SCRIPTED.lastSeen().headers().getOrigin()).as("Origin is not forwarded").isNull();
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(202).send());
	}

	@Test
	void unsupportedHttpMethodIs405() {
		HttpResponse<String> response = http().send(http().request("scripted").PUT(HttpRequest.BodyPublishers.ofString("{}")));

		assertError(response, 405, -32600, "method_not_allowed");
		// in the order the message and servers-and-transports.md name them, on every replica
		assertThat(response.headers().firstValue("Allow")).hasValueSatisfying(
				allow -> assertThat(allow.split(",\\s*")).containsExactly("POST", "GET", "DELETE"));
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	static void assertError(HttpResponse<String> response, int status, int code, String reason) {
		assertThat(response.statusCode()).as("HTTP status; body: %s", response.body()).isEqualTo(status);
		assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
		JsonNode body = RawHttp.json(response.body());
		assertThat(body.get("jsonrpc").asText()).isEqualTo("2.0");
		assertThat(body.at("/error/code").asInt()).as("JSON-RPC code").isEqualTo(code);
		assertThat(body.at("/error/data/reason").asText()).as("machine-readable reason").isEqualTo(reason);
		assertThat(body.at("/error/message").asText()).as("a message for the user").isNotBlank();
	}

}
