package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.ToolsCallResponse;
import dev.mcprelay.api.ToolsCallResponseInterceptor;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A direct server's answer under a status other than 2xx (cold review H, issue 39): no JSON-RPC answer in it reaches
 * the client past its stages. The server {@code guarded} hides {@code secret_*} tools ({@code tools.deny}) and has a
 * redactor at {@code tools-call-response}; its upstream is scripted to answer with a 4xx or 5xx whose body is a
 * JSON-RPC result (JSON or an event stream), which a list's or a tool's stage would have changed. Bodies that hold no
 * JSON-RPC answer but errors (an HTML 502 page, a 401 whose JSON-RPC error asks to sign in) are still relayed as they
 * came. Cold review I: a 2xx answer to requests that is neither JSON nor an event stream is never relayed (each
 * request gets {@code upstream_invalid_response}); a non-2xx body the relay cannot read as JSON-RPC (a {@code +json} or
 * {@code json-rpc} type, gzip, trailing text, two values) fails closed; and every request of a batch gets an answer
 * under its own id.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(NonSuccessAnswersTest.Interceptors.class)
class NonSuccessAnswersTest {

	@LocalServerPort
	int port;

	@TestConfiguration(proxyBeanMethods = false)
	static class Interceptors {

		@Bean
		ToolsCallResponseInterceptor nonSuccessRedactor() {
			return new ToolsCallResponseInterceptor() {

				@Override
				public String name() {
					return "non-success-redactor";
				}

				@Override
				public boolean appliesTo(String server) {
					return "guarded".equals(server);
				}

				@Override
				public Mono<Outcome> interceptToolsCallResponse(ToolsCallResponse response) {
					response.replaceResult(Map.of("content", List.of(Map.of("type", "text", "text", "[redacted]"))));
					return Outcome.proceed();
				}

			};
		}

	}

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.guarded.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
		registry.add("mcp-relay.servers.guarded.tools.deny[0]", () -> "secret_*");
	}

	@BeforeEach
	void reset() {
		TestUpstreams.SCRIPTED.clear();
	}

	@ParameterizedTest(name = "{0} answered HTTP {1} as {2}")
	@CsvSource({ "tools/list, 500, application/json", "tools/list, 400, text/event-stream",
			"prompts/list, 503, application/json", "prompts/list, 500, text/event-stream",
			"resources/list, 404, application/json", "resources/list, 500, text/event-stream",
			"tools/call, 400, application/json", "tools/call, 500, text/event-stream" })
	void aResultUnderANonSuccessStatusNeverReachesTheClientPastItsStage(String method, int status, String type) {
		String result = switch (method) {
			case "tools/list" -> "{\"tools\":[{\"name\":\"secret_admin\",\"description\":\"the secret\","
					+ "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"_tenant\":{\"type\":\"string\"}}}}]}";
			case "prompts/list" -> "{\"prompts\":[{\"name\":\"the secret prompt\"}]}";
			case "resources/list" -> "{\"resources\":[{\"uri\":\"file:///the/secret\",\"name\":\"the secret\"}]}";
			default -> "{\"content\":[{\"type\":\"text\",\"text\":\"the secret\"}]}";
		};
		String answer = "{\"jsonrpc\":\"2.0\",\"id\":41,\"result\":" + result + "}";
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(status)
			.header("Content-Type", type)
			.sendString(Mono.just(type.equals("text/event-stream") ? "event: message\ndata: " + answer + "\n\n"
					: answer)));
		RawHttp http = new RawHttp(port);
		String params = method.equals("tools/call") ? ",\"params\":{\"name\":\"echo\",\"arguments\":{}}" : "";

		HttpResponse<String> response = http
			.send(http.post("guarded", "{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"" + method + "\"" + params + "}"));

		assertThat(response.body()).as("nothing of the result reaches the client").doesNotContain("secret");
		assertThat(response.statusCode()).as("the upstream's status stays").isEqualTo(status);
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).hasSize(1);
		assertThat(messages.get(0).get("id").asInt()).isEqualTo(41);
		assertThat(messages.get(0).at("/error/data/reason").asText()).isEqualTo("upstream_error_status");
		assertThat(messages.get(0).at("/error/message").asText()).contains(String.valueOf(status));
	}

	@Test
	void aResultBesideAnInvalidMessageUnderANonSuccessStatusNeverReachesTheClient() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(500)
			.header("Content-Type", "application/json")
			.sendString(Mono.just("[{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"tools\":[{\"name\":\"secret_admin\"}]}},"
					+ "{\"not\":\"json-rpc\"}]")));
		RawHttp http = new RawHttp(port);

		HttpResponse<String> response = http
			.send(http.post("guarded", "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}"));

		assertThat(response.body()).as("a body that is not all JSON-RPC still holds a result a client may read")
			.doesNotContain("secret");
		assertThat(RawHttp.json(response.body()).at("/error/data/reason").asText()).isEqualTo("upstream_error_status");
	}

	@Test
	void aJsonRpcErrorUnderANonSuccessStatusIsRelayedAsItCame() {
		String error = "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32001,\"message\":\"sign in first\"}}";
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(401)
			.header("Content-Type", "application/json")
			.header("WWW-Authenticate", "Bearer resource_metadata=\"https://example.test/.well-known\"")
			.sendString(Mono.just(error)));
		RawHttp http = new RawHttp(port);

		HttpResponse<String> response = http.send(http.post("guarded", RawHttp.toolsCall(7, "echo")));

		assertThat(response.statusCode()).isEqualTo(401);
		assertThat(response.body()).isEqualTo(error);
	}

	@Test
	void aBodyThatIsNoJsonRpcIsRelayedAsItCame() {
		String page = "<html><body><h1>502 Bad Gateway</h1></body></html>";
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(502)
			.header("Content-Type", "text/html")
			.sendString(Mono.just(page)));
		RawHttp http = new RawHttp(port);

		HttpResponse<String> response = http.send(http.post("guarded", RawHttp.toolsCall(8, "echo")));

		assertThat(response.statusCode()).isEqualTo(502);
		assertThat(response.body()).isEqualTo(page);
		assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type)
			.startsWith("text/html"));
	}

	/** The upstream's result for request {@code id} of {@code method}: a secret a stage would have changed. */
	private static String secretResult(Object id, String method) {
		String result = method.equals("tools/list")
				? "{\"tools\":[{\"name\":\"secret_admin\",\"inputSchema\":{\"type\":\"object\",\"properties\":"
						+ "{\"_tenant\":{\"type\":\"string\"}}}}]}"
				: "{\"content\":[{\"type\":\"text\",\"text\":\"the secret\"}]}";
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + result + "}";
	}

	private static String request(Object id, String method) {
		return method.equals("tools/call") ? RawHttp.toolsCall(id, "echo")
				: "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\"}";
	}

	/** Sends {@code body} with {@code status}, {@code type} ("none": no Content-Type) and gzip'd if asked. */
	private static org.reactivestreams.Publisher<Void> answer(HttpServerResponse response, int status, String type,
			boolean gzip, String body) {
		response.status(status);
		if (!type.equals("none")) {
			response.header("Content-Type", type);
		}
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		if (gzip) {
			response.header("Content-Encoding", "gzip");
			bytes = gzip(bytes);
		}
		return response.sendByteArray(Mono.just(bytes));
	}

	private static byte[] gzip(byte[] bytes) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		try (GZIPOutputStream zipped = new GZIPOutputStream(out)) {
			zipped.write(bytes);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return out.toByteArray();
	}

	@ParameterizedTest(name = "{0} answered HTTP {1} as {2} (gzip: {3})")
	@CsvSource(delimiter = '|', value = { "tools/list | 200 | application/json-rpc | false",
			"tools/call | 200 | application/jsonx | false", "tools/list | 200 | text/plain; x=application/json | false",
			"tools/call | 200 | none | false", "tools/list | 201 | application/problem+json | false",
			"tools/call | 200 | application/json | true", "tools/list | 200 | text/event-stream | true",
			"tools/list | 200 | */* | false", "tools/call | 200 | text/* | false",
			"tools/list | 202 | application/json | false" })
	void aSuccessThatIsNeitherJsonNorAnEventStreamNeverReachesTheClient(String method, int status, String type,
			boolean gzip) {
		String result = secretResult(41, method);
		TestUpstreams.SCRIPTED.script((request, response) -> answer(response, status, type, gzip,
				type.equals("text/event-stream") ? "event: message\ndata: " + result + "\n\n" : result));
		RawHttp http = new RawHttp(port);

		HttpResponse<String> response = http.send(http.post("guarded", request(41, method)));

		assertThat(response.body()).as("nothing of the result reaches the client").doesNotContain("secret");
		assertThat(response.headers().firstValue("Content-Encoding")).isEmpty();
		assertThat(response.statusCode()).isEqualTo(502);
		JsonNode error = RawHttp.json(response.body());
		assertThat(error.get("id").asInt()).isEqualTo(41);
		assertThat(error.at("/error/data/reason").asText()).isEqualTo("upstream_invalid_response");
		assertThat(error.at("/error/message").asText()).as("names the head, never the body")
			.contains(gzip ? "Content-Encoding 'gzip'" : type.equals("none") ? "no Content-Type" : "'" + type + "'")
			.doesNotContain("secret");
	}

	@Test
	void aSuccessWithoutABodyToARequestAnswersItWithAnError() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(202).send());
		RawHttp http = new RawHttp(port);

		HttpResponse<String> response = http.send(http.post("guarded", RawHttp.toolsCall(3, "echo")));

		assertThat(response.statusCode()).as("the request is answered, never left waiting").isEqualTo(502);
		assertThat(RawHttp.json(response.body()).at("/error/data/reason").asText())
			.isEqualTo("upstream_invalid_response");
	}

	@Test
	void aNotificationAcceptedWithoutABodyIsStillAccepted() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(202).send());
		RawHttp http = new RawHttp(port);

		HttpResponse<String> response = http
			.send(http.post("guarded", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));

		assertThat(response.statusCode()).isEqualTo(202);
		assertThat(response.body()).isEmpty();
	}

	@ParameterizedTest(name = "{0} answered HTTP {1} as {2} (gzip: {3}): {4}")
	@CsvSource(delimiter = '|', value = { "tools/list | 500 | application/problem+json | false | result",
			"tools/call | 500 | application/json-rpc | false | result",
			"tools/list | 400 | application/jsonx | false | result",
			"tools/call | 500 | application/json | true | result",
			"tools/list | 500 | application/json | false | trailing text",
			"tools/call | 503 | application/json | false | two values",
			"tools/list | 500 | application/octet-stream | false | result" })
	void aNonSuccessBodyTheRelayCannotReadAsJsonRpcFailsClosed(String method, int status, String type, boolean gzip,
			String shape) {
		String result = secretResult(41, method);
		String body = switch (shape) {
			case "trailing text" -> result + " and some text";
			case "two values" -> result + result;
			default -> result;
		};
		TestUpstreams.SCRIPTED.script((request, response) -> answer(response, status, type, gzip, body));
		RawHttp http = new RawHttp(port);

		HttpResponse<String> response = http.send(http.post("guarded", request(41, method)));

		assertThat(response.body()).as("nothing of the result reaches the client").doesNotContain("secret");
		assertThat(response.headers().firstValue("Content-Encoding")).isEmpty();
		assertThat(response.statusCode()).as("the upstream's status stays").isEqualTo(status);
		JsonNode error = RawHttp.json(response.body());
		assertThat(error.get("id").asInt()).isEqualTo(41);
		assertThat(error.at("/error/data/reason").asText()).isEqualTo("upstream_error_status");
		assertThat(error.at("/error/message").asText()).contains(String.valueOf(status));
	}

	@Test
	void everyRequestOfABatchTheUpstreamAnsweredOnlyInPartIsAnswered() {
		String error = "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32603,\"message\":\"list failed\"}}";
		TestUpstreams.SCRIPTED.script((request, response) -> answer(response, 500, "application/json", false, error));
		RawHttp http = new RawHttp(port);

		HttpResponse<String> response = http
			.send(http.post("guarded", "[" + request(5, "tools/list") + "," + request(6, "tools/call") + "]"));

		assertThat(response.statusCode()).isEqualTo(500);
		List<JsonNode> answers = RawHttp.messagesOf(response);
		assertThat(answers).hasSize(2);
		assertThat(answers.get(0).get("id").asInt()).isEqualTo(5);
		assertThat(answers.get(0).at("/error/message").asText()).as("the upstream's own error").isEqualTo("list failed");
		assertThat(answers.get(1).get("id").asInt()).isEqualTo(6);
		assertThat(answers.get(1).at("/error/data/reason").asText()).as("the relay's, for the one it left")
			.isEqualTo("upstream_error_status");
	}

	@Test
	void anErrorUnderIdNullReachesTheClientUnderTheRequestsId() {
		String error = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}";
		TestUpstreams.SCRIPTED.script((request, response) -> answer(response, 404, "application/json", false, error));
		RawHttp http = new RawHttp(port);

		HttpResponse<String> response = http.send(http.post("guarded", RawHttp.toolsCall(12, "echo")));

		assertThat(response.statusCode()).isEqualTo(404);
		JsonNode answer = RawHttp.json(response.body());
		assertThat(answer.get("id").asInt()).isEqualTo(12);
		assertThat(answer.at("/error/message").asText()).isEqualTo("Session not found");
	}

}
