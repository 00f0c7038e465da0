package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
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

/**
 * A direct server's answer under a status other than 2xx (cold review H, issue 39): no JSON-RPC answer in it reaches
 * the client past its stages. The server {@code guarded} hides {@code secret_*} tools ({@code tools.deny}) and has a
 * redactor at {@code tools-call-response}; its upstream is scripted to answer with a 4xx or 5xx whose body is a
 * JSON-RPC result (JSON or an event stream), which a list's or a tool's stage would have changed. Bodies that hold no
 * JSON-RPC answer but errors (an HTML 502 page, a 401 whose JSON-RPC error asks to sign in) are still relayed as they
 * came.
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

}
