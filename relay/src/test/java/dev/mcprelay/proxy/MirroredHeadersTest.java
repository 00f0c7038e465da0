package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RelayIntegrationTest;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * {@code Mcp-Method} and {@code Mcp-Name} (MCP 2026-07-28) must say what the body says: a request whose headers
 * agree goes upstream with them unchanged; one whose headers contradict the body is refused with -32020 before
 * anything is forwarded, so nothing behind the relay can be shown a false method or tool name.
 */
class MirroredHeadersTest extends RelayIntegrationTest {

	/** The scripted upstream with the default timeouts: nothing here tests time. */
	private static final String SCRIPTED = "scripted-default-timeouts";

	private static final String ECHO_IN_BASE64 = "=?base64?ZWNobw==?=";

	@BeforeEach
	void clearUpstreams() {
		TestUpstreams.SDK.clearSeen();
		TestUpstreams.SCRIPTED.clear();
		// a request is answered with an empty result (a 2xx without a JSON or event-stream body would leave it
		// unanswered, which the relay answers with an error), anything else accepted
		TestUpstreams.SCRIPTED.scriptWithBody((request, response, body) -> !body.contains("\"id\"")
				? response.status(202).send()
				: response.status(200)
					.header("Content-Type", "application/json")
					.sendString(reactor.core.publisher.Mono.just(body.replaceFirst("(?s)\"method\".*", "\"result\":{}}"))));
	}

	@ParameterizedTest(name = "Mcp-Name: {0}")
	@ValueSource(strings = { "echo", ECHO_IN_BASE64 })
	void headersThatAgreeWithTheBodyReachARealServerUnchanged(String mcpName) {
		HttpResponse<String> response = http().send(http().post("sdk-json", RawHttp.toolsCall(7, "echo"))
			.header("Mcp-Method", "tools/call")
			.header("Mcp-Name", mcpName));

		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		assertThat(RawHttp.json(response.body()).has("result")).as(response.body()).isTrue();
		SdkMcpUpstream.Seen seen = TestUpstreams.SDK.seen().get(TestUpstreams.SDK.seen().size() - 1);
		assertThat(seen.headers().getFirst("Mcp-Method")).isEqualTo("tools/call");
		assertThat(seen.headers().getFirst("Mcp-Name")).isEqualTo(mcpName);
	}

	@Test
	void aResourceUriAndANonAsciiNameInBase64Agree() {
		String read = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"memo://one\"}}";
		String unicode = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"tööl\"}}";

		HttpResponse<String> byUri = http()
			.send(http().post(SCRIPTED, read).header("Mcp-Method", "resources/read").header("Mcp-Name", "memo://one"));
		HttpResponse<String> byBase64 = http().send(http().post(SCRIPTED, unicode)
			.header("Mcp-Method", "tools/call")
			.header("Mcp-Name", "=?base64?dMO2w7Zs?="));

		assertThat(byUri.statusCode()).as(byUri.body()).isEqualTo(200);
		assertThat(byBase64.statusCode()).as(byBase64.body()).isEqualTo(200);
		assertThat(TestUpstreams.SCRIPTED.seen()).hasSize(2);
	}

	static Stream<Arguments> contradictions() {
		String call = RawHttp.toolsCall(5, "echo");
		return Stream.of(Arguments.of("another method", call, "tools/list", null, "Mcp-Method"),
				Arguments.of("another tool", call, null, "secret_admin", "Mcp-Name"),
				Arguments.of("another tool in Base64", call, null, "=?base64?c2VjcmV0X2FkbWlu?=", "Mcp-Name"),
				Arguments.of("broken Base64", call, null, "=?base64?***?=", "Mcp-Name"),
				Arguments.of("a name for a body without one", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}", null,
						"echo", "Mcp-Name"),
				Arguments.of("a method for a response", "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}", "tools/call", null,
						"Mcp-Method"),
				Arguments.of("one message of a batch", "[" + call + "," + RawHttp.toolsCall(6, "secret_admin") + "]",
						"tools/call", "echo", "Mcp-Name"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("contradictions")
	void headersThatContradictTheBodyAreRefusedAndNothingIsForwarded(String what, String body, String mcpMethod,
			String mcpName, String header) {
		var request = http().post(SCRIPTED, body);
		if (mcpMethod != null) {
			request.header("Mcp-Method", mcpMethod);
		}
		if (mcpName != null) {
			request.header("Mcp-Name", mcpName);
		}

		HttpResponse<String> response = http().send(request);

		assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
		JsonNode error = RawHttp.messagesOf(response).get(0).get("error");
		assertThat(error.get("code").asInt()).isEqualTo(-32020);
		assertThat(error.at("/data/reason").asText()).isEqualTo("header_mismatch");
		assertThat(error.get("message").asText()).contains(header);
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	static Stream<Arguments> repeatedLinesThatDisagree() {
		return Stream.of(Arguments.of("Mcp-Name", "echo", "secret_admin"), Arguments.of("Mcp-Name", "secret_admin", "echo"),
				Arguments.of("Mcp-Method", "tools/call", "tools/list"),
				Arguments.of("Mcp-Method", "tools/list", "tools/call"));
	}

	@ParameterizedTest(name = "{0}: {1} then {2}")
	@MethodSource("repeatedLinesThatDisagree")
	void aMirroredHeaderRepeatedWithAnotherValueIsRefusedAsAMismatch(String header, String first, String second) {
		// one line may agree with the body: a gateway behind the relay that reads the other would be misled
		HttpResponse<String> response = http()
			.send(http().post(SCRIPTED, RawHttp.toolsCall(5, "echo")).header(header, first).header(header, second));

		assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
		JsonNode error = RawHttp.messagesOf(response).get(0).get("error");
		assertThat(error.get("code").asInt()).isEqualTo(-32020);
		assertThat(error.at("/data/reason").asText()).isEqualTo("header_mismatch");
		assertThat(error.get("message").asText()).contains(header);
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	@Test
	void aMirroredHeaderRepeatedWithTheBodysValueGoesUpstreamAsOneLine() {
		HttpResponse<String> response = http().send(http().post(SCRIPTED, RawHttp.toolsCall(5, "echo"))
			.header("Mcp-Method", "tools/call")
			.header("Mcp-Method", "tools/call")
			.header("Mcp-Name", "echo")
			.header("Mcp-Name", "=?base64?ZWNobw==?="));

		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		assertThat(TestUpstreams.SCRIPTED.lastSeen().headers().get("Mcp-Method")).as("one line, as the body says")
			.containsExactly("tools/call");
		assertThat(TestUpstreams.SCRIPTED.lastSeen().headers().get("Mcp-Name"))
			.as("every line agrees with the body, the first goes upstream").containsExactly("echo");
	}

	@Test
	void theRefusalAnswersEachRequestByItsId() {
		HttpResponse<String> response = http().send(http()
			.post(SCRIPTED, "[" + RawHttp.toolsCall(11, "echo") + "," + RawHttp.toolsCall("twelve", "echo") + "]")
			.header("Mcp-Method", "tools/list"));

		List<JsonNode> answers = RawHttp.messagesOf(response);
		assertThat(answers).extracting(answer -> answer.get("id").asText()).containsExactly("11", "twelve");
		assertThat(answers).allSatisfy(answer -> assertThat(answer.at("/error/code").asInt()).isEqualTo(-32020));
	}

	@Test
	void theSentinelFormIsDecodedAndEverythingElseIsTakenAsIs() {
		assertThat(MirroredHeaders.decode("=?base64?dMO2w7Zs?=")).isEqualTo("tööl");
		assertThat(MirroredHeaders.decode("echo")).isEqualTo("echo");
		assertThat(MirroredHeaders.decode("=?base64?")).as("a prefix alone is a plain value").isEqualTo("=?base64?");
		assertThat(MirroredHeaders.decode("=?base64?***?=")).as("broken Base64").isNull();
		assertThat(MirroredHeaders.decode("=?base64?ZWNobw?=")).as("padding left out (conformance: refused)").isNull();
	}

}
