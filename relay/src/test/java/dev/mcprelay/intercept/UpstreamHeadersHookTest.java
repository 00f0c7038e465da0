package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpHeaders;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.UpstreamHeaders;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Mono;

/**
 * An interceptor sets and removes upstream request headers for one request, on POST, GET and DELETE alike; the
 * headers the relay manages are refused to it. The scripted upstream records what it received.
 */
class UpstreamHeadersHookTest extends InterceptorIntegrationTest {

	@BeforeEach
	void answerEverything() {
		TestUpstreams.SCRIPTED.script((request, response) -> request.method().name().equals("POST")
				? response.status(200).header("Content-Type", "application/json")
					.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"))
				: response.status(405).send());
	}

	@ParameterizedTest(name = "{0}: an interceptor's upstream headers reach the upstream")
	@ValueSource(strings = { "POST", "GET", "DELETE" })
	void headersSetAndRemovedByAnInterceptorReachTheUpstream(String method) {
		script.on("first", Stage.USER_REQUEST, message -> {
			message.context().upstreamHeaders().set("X-Upstream-User", "alice");
			message.context().upstreamHeaders().set("Authorization", "Bearer per-user-token");
			message.context().upstreamHeaders().remove("X-Custom");
			return Outcome.proceed();
		});

		http().send(http().request("scripted")
			.header("Content-Type", "application/json")
			.header("Accept", RawHttp.ACCEPT_BOTH)
			.header("X-Custom", "from-the-client")
			.method(method, method.equals("POST") ? java.net.http.HttpRequest.BodyPublishers.ofString(RawHttp.toolsCall(1, "echo"))
					: java.net.http.HttpRequest.BodyPublishers.noBody()));

		HttpHeaders upstream = TestUpstreams.SCRIPTED.lastSeen().headers();
		assertThat(TestUpstreams.SCRIPTED.lastSeen().method()).isEqualTo(method);
		assertThat(upstream.getFirst("X-Upstream-User")).isEqualTo("alice");
		assertThat(upstream.get("Authorization")).as("an interceptor may replace the upstream credential")
			.containsExactly("Bearer per-user-token");
		assertThat(upstream.get("X-Custom")).as("removed for this request").isNull();
	}

	@Test
	void theHeadersTheRelayManagesAreRefusedToAnInterceptor() {
		script.on("first", Stage.TOOLS_CALL_REQUEST, call -> {
			call.context().upstreamHeaders().set("Mcp-Session-Id", "hijacked");
			return Outcome.proceed();
		});

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(1, "echo")));

		assertThat(RawHttp.json(response.body()).at("/error/code").asInt()).as("the interceptor failed: -32603")
			.isEqualTo(-32603);
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	@Test
	void theManagedHeadersAreTheOnesTheConfigurationCannotSetEither() {
		assertThat(UpstreamHeaders.isManaged("mcp-session-id")).isTrue();
		assertThat(UpstreamHeaders.isManaged("MCP-Protocol-Version")).isTrue();
		assertThat(UpstreamHeaders.isManaged("Last-Event-ID")).isTrue();
		assertThat(UpstreamHeaders.isManaged("Authorization")).isFalse();
		assertThat(UpstreamHeaders.isManaged("X-Tenant")).isFalse();
	}

}
