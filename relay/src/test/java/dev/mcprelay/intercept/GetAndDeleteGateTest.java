package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpMethod;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * GET (opening the server's stream) and DELETE (ending the session) pass the user-request stage, so a policy can gate
 * them: a rejection is 403 with an id-less JSON-RPC error and nothing reaches the upstream; a proceed relays them as
 * before.
 */
class GetAndDeleteGateTest extends InterceptorIntegrationTest {

	@ParameterizedTest(name = "a {0} an interceptor refuses is 403 and never forwarded")
	@ValueSource(strings = { "GET", "DELETE" })
	void aRefusedGetOrDeleteIsNeverForwarded(String method) {
		McpSession session = session("sdk");
		script.on("first", Stage.USER_REQUEST, message -> message.hasNoMessage()
				&& message.httpMethod().equals(method)
						? Outcome.reject(RejectError.policy("Not for you: " + message.httpMethod()))
						: Outcome.proceed());
		upstream.clearSeen();

		HttpResponse<String> response = http().send(http().request("sdk")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.method(method, java.net.http.HttpRequest.BodyPublishers.noBody()));

		assertThat(response.statusCode()).isEqualTo(403);
		JsonNode error = RawHttp.json(response.body());
		assertThat(error.get("id").isNull()).isTrue();
		assertThat(error.at("/error/code").asInt()).isEqualTo(-32000);
		assertThat(error.at("/error/message").asText()).isEqualTo("Not for you: " + method);
		assertThat(upstream.seen()).as("nothing reached the upstream")
			.noneMatch(seen -> seen.method().equals(method));
	}

	@ParameterizedTest(name = "a {0} the interceptors let pass is relayed, and they saw it")
	@ValueSource(strings = { "GET", "DELETE" })
	void aGetOrDeleteTheInterceptorsPassIsRelayed(String method) {
		McpSession session = session("sdk-json");
		script.reset();

		HttpResponse<String> response = http().send(http().request("sdk-json")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", "any")
			.method(method, java.net.http.HttpRequest.BodyPublishers.noBody()));

		assertThat(response.statusCode()).as("the stateless SDK server's own answer").isEqualTo(405);
		assertThat(script.calls()).as("the user-request stage saw it, with no message")
			.anySatisfy(call -> {
				assertThat(call.stage()).isEqualTo("user-request");
				assertThat(call.method()).isNull();
			});
		assertThat(session.id()).isNull();
	}

	@ParameterizedTest(name = "a respond to a {0} is refused: there is no request to answer")
	@ValueSource(strings = { "GET", "DELETE" })
	void aRespondToAGetOrDeleteIsTheInterceptorsFault(String method) {
		script.on("first", Stage.USER_REQUEST, message -> message.hasNoMessage()
				? Outcome.respond(java.util.Map.of("ok", true)) : Outcome.proceed());

		HttpResponse<String> response = http().send(http().request("sdk-json")
			.method(method, java.net.http.HttpRequest.BodyPublishers.noBody()));

		assertThat(response.statusCode()).isEqualTo(403);
		assertThat(RawHttp.json(response.body()).at("/error/code").asInt()).isEqualTo(-32603);
		assertThat(HttpMethod.valueOf(method)).isNotNull();
	}

}
