package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.RawHttp;

/**
 * A client that keeps its connection to the relay open gets an answer to every request on it, including the answers
 * the relay gives at once, without a round trip upstream. Reactor Netty 1.2 could stop reading such a connection
 * after one of them (reactor-netty#4361): this test hung on one of its first few hundred requests in every run without
 * the relay's guard. Reactor Netty 1.3 (Spring Boot 4.1) reads on; the guard is gone, and the test stays to keep it so.
 */
class KeepAliveConnectionTest extends InterceptorIntegrationTest {

	private static final int ROUNDS = 60;

	@Test
	void everyRequestOnOneKeepAliveConnectionIsAnswered() throws Exception {
		script.on("first", Stage.TOOLS_CALL_REQUEST, call -> call.toolName().equals("blocked")
				? Outcome.reject(RejectError.policy("blocked by policy")) : Outcome.proceed());
		HttpClient oneConnection = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		List<Exchange> exchanges = List.of(
				new Exchange("a health probe", get("/actuator/health/liveness"), 200),
				new Exchange("an unknown server", post("/mcp/no-such-server", RawHttp.toolsCall(1, "echo")), 404),
				new Exchange("a rejected call", post("/mcp/sdk-json", RawHttp.toolsCall(2, "blocked")), 200),
				new Exchange("an unexposed endpoint", get("/actuator/env"), 404),
				new Exchange("a relayed call", post("/mcp/sdk-json", RawHttp.toolsCall(3, "echo")), 200));

		for (int round = 0; round < ROUNDS; round++) {
			for (Exchange exchange : exchanges) {
				assertThat(send(oneConnection, exchange, round)).as(exchange.what()).isEqualTo(exchange.status());
			}
		}
	}

	private static int send(HttpClient client, Exchange exchange, int round) throws IOException, InterruptedException {
		try {
			return client.send(exchange.request(), HttpResponse.BodyHandlers.ofString()).statusCode();
		}
		catch (HttpTimeoutException ex) {
			throw new AssertionError("No answer to " + exchange.what() + " in round " + round
					+ ": the relay stopped reading the keep-alive connection", ex);
		}
	}

	private HttpRequest get(String path) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(5)).build();
	}

	private HttpRequest post(String path, String body) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(5))
			.header("Content-Type", "application/json")
			.header("Accept", RawHttp.ACCEPT_BOTH)
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build();
	}

	private record Exchange(String what, HttpRequest request, int status) {
	}

}
