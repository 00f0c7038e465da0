package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RelayIntegrationTest;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The configured credentials of {@code scripted-headers} (authorization, a static header value, a key in the URL
 * query) never appear in any log line, on success or on any failure that logs.
 */
class SecretsStayOutOfLogsTest extends RelayIntegrationTest {

	@Test
	void noConfiguredSecretIsEverLogged() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")));
		assertThat(send().statusCode()).isEqualTo(200);

		TestUpstreams.SCRIPTED.script((request, response) -> response.status(500).sendString(Mono.just("boom")));
		assertThat(send().statusCode()).isEqualTo(500);

		// A connection closed before any answer fails inside WebClient, whose exception message holds the full URL.
		TestUpstreams.SCRIPTED.script((request, response) -> {
			response.withConnection(connection -> connection.channel().close());
			return Mono.never();
		});
		assertThat(send().statusCode()).as("unreachable, and logged").isEqualTo(502);

		TestUpstreams.SCRIPTED.script((request, response) -> UpstreamFaultTest.sse(response)
			.sendString(Flux.concat(Mono.just("data: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n"),
					Mono.delay(Duration.ofMillis(50)).then(Mono.error(new IllegalStateException("crash"))))));
		assertThat(send().statusCode()).as("a stream that breaks off, logged").isEqualTo(200);

		TestUpstreams.SCRIPTED.script((request, response) -> UpstreamFaultTest.sse(response)
			.sendString(Mono.just("data: not json\n\n")));
		assertThat(send().statusCode()).as("a malformed stream, logged as a warning").isEqualTo(200);

		assertThat(CapturedLogs.all()).as("the failures above were logged").anySatisfy(line -> assertThat(line).contains("scripted-headers"));
		assertThat(String.join("\n", CapturedLogs.all())).doesNotContain("upstream-secret-token-4711")
			.doesNotContain(STATIC_KEY)
			.doesNotContain(QUERY_SECRET);
	}

	private java.net.http.HttpResponse<String> send() {
		return http().send(http().post("scripted-headers", RawHttp.toolsCall(1, "echo")).header("X-Client-Tenant", "acme"));
	}

}
