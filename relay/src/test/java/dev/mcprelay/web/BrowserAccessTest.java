package dev.mcprelay.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RelayIntegrationTest;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * Browsers: CORS preflights are answered for allowed origins ({@code https://app.example.com} is configured) and, the
 * relay listening on 127.0.0.1 in tests, for loopback origins; a foreign origin or a foreign {@code Host} (DNS
 * rebinding) is refused with 403 before anything is forwarded.
 */
class BrowserAccessTest extends RelayIntegrationTest {

	@ParameterizedTest(name = "a preflight from {0} is answered")
	@ValueSource(strings = { "https://app.example.com", "http://localhost:5173", "http://127.0.0.1:3000",
			"http://[::1]:8080", "https://localhost" })
	void aPreflightFromAnAllowedOriginIsAnswered(String origin) {
		HttpResponse<String> response = preflight("/mcp/sdk-json", origin, "POST",
				"content-type, authorization, mcp-session-id, mcp-protocol-version, last-event-id, mcp-method, mcp-name, "
						+ "x-request-id");

		assertThat(response.statusCode()).isEqualTo(204);
		assertThat(response.headers().firstValue("Access-Control-Allow-Origin")).hasValue(origin);
		assertThat(response.headers().firstValue("Access-Control-Allow-Methods")).hasValue("GET, POST, DELETE");
		assertThat(response.headers().firstValue("Access-Control-Allow-Headers").orElse("").toLowerCase())
			.contains("content-type", "authorization", "mcp-session-id", "mcp-protocol-version", "last-event-id",
					"mcp-method", "mcp-name", "x-request-id");
		assertThat(TestUpstreams.SDK.seen()).as("a preflight is never forwarded")
			.noneMatch(seen -> seen.method().equals("OPTIONS"));
	}

	@Test
	void aPreflightFromAForeignOriginIs403InJsonRpc() {
		HttpResponse<String> response = preflight("/mcp/sdk-json", "https://evil.example.net", "POST", "content-type");

		assertThat(response.statusCode()).isEqualTo(403);
		assertThat(response.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
		assertThat(RawHttp.json(response.body()).at("/error/data/reason").asText()).isEqualTo("origin_not_allowed");
	}

	@Test
	void aResponseToAnAllowedOriginLetsThePageReadTheSession() {
		HttpResponse<String> response = http().send(http().post("sdk", McpSession.initialize(1))
			.header("Origin", "http://localhost:5173"));

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("Access-Control-Allow-Origin")).hasValue("http://localhost:5173");
		assertThat(response.headers().firstValue("Access-Control-Expose-Headers").orElse(""))
			.as("the session, and the request id that names the access-log line").contains("Mcp-Session-Id", "X-Request-Id");
		assertThat(response.headers().firstValue("Mcp-Session-Id")).isPresent();
		assertThat(response.headers().firstValue("X-Request-Id")).isPresent();
	}

	@Test
	void aJsonAnswerToAnAllowedOriginCarriesTheSameHeaders() {
		// sdk-json answers with one JSON body, which the relay writes as one message (head and body together): the
		// headers added before the head goes out must be in that head too
		HttpResponse<String> response = http().send(http().post("sdk-json", McpSession.initialize(1))
			.header("Origin", "http://localhost:5173"));

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
		assertThat(response.headers().firstValue("Access-Control-Allow-Origin")).hasValue("http://localhost:5173");
		assertThat(response.headers().allValues("Vary")).contains("Origin");
	}

	@Test
	void aRequestForAForeignHostIsRefusedAsDnsRebinding() throws Exception {
		TestUpstreams.SCRIPTED.clear();
		String answer;
		try (Socket socket = new Socket("127.0.0.1", port)) {
			String body = RawHttp.toolsCall(1, "echo");
			socket.getOutputStream()
				.write(("POST /mcp/scripted HTTP/1.1\r\nHost: evil.example.com\r\n"
						+ "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
						+ "Content-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body)
					.getBytes(StandardCharsets.UTF_8));
			answer = RawHttp.readAll(socket.getInputStream());
		}

		assertThat(answer).startsWith("HTTP/1.1 403").contains("host_not_allowed");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	private HttpResponse<String> preflight(String path, String origin, String method, String headers) {
		return http().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.header("Origin", origin)
			.header("Access-Control-Request-Method", method)
			.header("Access-Control-Request-Headers", headers)
			.method("OPTIONS", HttpRequest.BodyPublishers.noBody()));
	}

}
