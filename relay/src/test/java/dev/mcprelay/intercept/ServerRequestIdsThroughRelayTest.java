package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.security.RelayMac;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RelayIntegrationTest;
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Mono;

/**
 * Server requests through a relay with no interceptor at all: each still reaches the client under the relay's id (the
 * decision does not depend on which interceptors exist or which servers they apply to), and whatever the client sends
 * back about it, its answer or its {@code notifications/cancelled}, reaches the server under the server's own id;
 * under an id of the relay's that does not verify in this session, or under an id the relay did not give (the
 * server's own), it is refused and nothing reaches the server, and
 * under an id of the former format (a rolling upgrade) it still reaches the server.
 */
class ServerRequestIdsThroughRelayTest extends RelayIntegrationTest {

	private static final String SERVER_REQUEST = "{\"jsonrpc\":\"2.0\",\"id\":\"srv-7\",\"method\":\"sampling/createMessage\","
			+ "\"params\":{\"messages\":[],\"maxTokens\":5}}";

	@Autowired
	RelayMac mac;

	@BeforeEach
	void scriptTheUpstream() {
		TestUpstreams.SCRIPTED.clear();
		TestUpstreams.SCRIPTED.script((request, response) -> request.method().name().equals("POST")
				? response.status(202).send()
				: response.status(200)
					.header("Content-Type", "text/event-stream")
					.sendString(Mono.just("id: g-1\nevent: message\ndata: " + SERVER_REQUEST + "\n\n")));
	}

	@Test
	void aServerRequestReachesTheClientUnderTheRelaysIdWithNoInterceptorConfigured() {
		String body = openStream();

		assertThat(body).as("the event keeps its id").startsWith("id: g-1\n");
		JsonNode request = RawHttp.sseData(body).get(0);
		assertThat(request.get("id").asText()).startsWith(ServerRequestIds.PREFIX);
		assertThat(request.get("method").asText()).isEqualTo("sampling/createMessage");
		assertThat(request.get("params").toString()).isEqualTo("{\"messages\":[],\"maxTokens\":5}");
	}

	@Test
	void theClientsAnswerAndCancellationReachTheServerUnderItsOwnId() {
		String relayId = RawHttp.sseData(openStream()).get(0).get("id").asText();

		HttpResponse<String> cancelled = post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
				+ "{\"requestId\":\"" + relayId + "\",\"reason\":\"the user closed the dialog\"}}");
		HttpResponse<String> answered = post("{\"jsonrpc\":\"2.0\",\"id\":\"" + relayId + "\",\"result\":{\"role\":"
				+ "\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"hi\"},\"model\":\"m\"}}");

		assertThat(cancelled.statusCode()).isEqualTo(202);
		assertThat(answered.statusCode()).isEqualTo(202);
		List<JsonNode> received = TestUpstreams.SCRIPTED.seen()
			.stream()
			.filter(seen -> seen.method().equals("POST"))
			.map(ScriptedUpstream.Seen::body)
			.map(RawHttp::json)
			.toList();
		assertThat(received).extracting(message -> message.at("/params/requestId").asText(message.path("id").asText()))
			.as("the server never sees the relay's id: it could not tell which of its requests ends")
			.containsExactly("srv-7", "srv-7");
		assertThat(received.get(0).at("/params/reason").asText()).isEqualTo("the user closed the dialog");
	}

	@Test
	void anAnswerOrCancellationUnderARelayIdThatDoesNotVerifyIsRefusedAndNothingGoesUpstream() {
		String relayId = RawHttp.sseData(openStream()).get(0).get("id").asText();
		String forged = ServerRequestIds.PREFIX + Base64.getUrlEncoder().withoutPadding()
			.encodeToString("{\"i\":{\"evil\":[1,2]}}".getBytes()) + ".AAAA";
		TestUpstreams.SCRIPTED.clear();

		List<HttpResponse<String>> refused = List.of(
				post("{\"jsonrpc\":\"2.0\",\"id\":\"" + forged + "\",\"result\":{}}"),
				post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\""
						+ forged + "\"}}"),
				http().send(http().post("scripted", "{\"jsonrpc\":\"2.0\",\"id\":\"" + relayId + "\",\"result\":{}}")
					.header("Mcp-Session-Id", "s-other")));

		assertThat(refused).allSatisfy(response -> {
			assertThat(response.statusCode()).isEqualTo(400);
			JsonNode error = RawHttp.json(response.body());
			assertThat(error.get("id").isNull()).isTrue();
			assertThat(error.at("/error/code").asInt()).isEqualTo(-32600);
			assertThat(error.at("/error/data/reason").asText()).isEqualTo("unknown_request_id");
			assertThat(response.body()).as("the client's text is not echoed").doesNotContain("evil");
		});
		assertThat(TestUpstreams.SCRIPTED.seen()).as("an id the relay did not give in this session restores nothing")
			.noneMatch(seen -> seen.method().equals("POST"));
	}

	@Test
	void anAnswerUnderTheServersOwnIdOrAnyIdTheRelayDidNotGiveIsRefusedAndNothingGoesUpstream() {
		RawHttp.sseData(openStream());
		TestUpstreams.SCRIPTED.clear();

		List<HttpResponse<String>> refused = List.of(post("{\"jsonrpc\":\"2.0\",\"id\":\"srv-7\",\"result\":{}}"),
				post("{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}"),
				post("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"no\"}}"));

		assertThat(refused).allSatisfy(response -> {
			assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
			JsonNode error = RawHttp.json(response.body());
			assertThat(error.at("/error/code").asInt()).isEqualTo(-32600);
			assertThat(error.at("/error/data/reason").asText()).isEqualTo("unknown_request_id");
		});
		assertThat(TestUpstreams.SCRIPTED.seen()).as("an answer to no request the relay relayed never goes upstream")
			.noneMatch(seen -> seen.method().equals("POST"));
	}

	@Test
	void aClientsCancellationOfItsOwnRequestStillReachesTheServer() {
		TestUpstreams.SCRIPTED.clear();

		HttpResponse<String> cancelled = post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
				+ "{\"requestId\":\"client-3\"}}");

		assertThat(cancelled.statusCode()).isEqualTo(202);
		assertThat(RawHttp.json(TestUpstreams.SCRIPTED.lastSeen().body()).at("/params/requestId").asText())
			.isEqualTo("client-3");
	}

	@Test
	void aBatchOfAnswersOneOfWhichDoesNotVerifyIsRefusedWholeAndNothingGoesUpstream() {
		String relayId = RawHttp.sseData(openStream()).get(0).get("id").asText();
		String forged = ServerRequestIds.PREFIX + Base64.getUrlEncoder().withoutPadding()
			.encodeToString("{\"i\":0}".getBytes()) + ".AAAA";
		TestUpstreams.SCRIPTED.clear();

		HttpResponse<String> refused = post("[{\"jsonrpc\":\"2.0\",\"id\":\"" + forged + "\",\"result\":{}},"
				+ "{\"jsonrpc\":\"2.0\",\"id\":\"" + relayId + "\",\"result\":{\"role\":\"assistant\","
				+ "\"content\":{\"type\":\"text\",\"text\":\"hi\"},\"model\":\"m\"}}]");

		assertThat(refused.statusCode()).as("a POST not accepted: the client may send its answer again").isEqualTo(400);
		assertThat(RawHttp.messagesOf(refused)).singleElement()
			.satisfies(error -> assertThat(error.at("/error/data/reason").asText()).isEqualTo("unknown_request_id"));
		assertThat(TestUpstreams.SCRIPTED.seen()).as("neither answer went upstream, as the 400 says")
			.noneMatch(seen -> seen.method().equals("POST"));
	}

	@Test
	void anAnswerUnderAnIdOfTheFormerFormatStillReachesTheServer() {
		// what a replica of the former version gave the client during a rolling upgrade
		String payload = Base64.getUrlEncoder().withoutPadding().encodeToString(
				("{\"i\":\"srv-old\",\"m\":\"sampling/createMessage\",\"p\":{}}").getBytes());
		String former = ServerRequestIds.FORMER_PREFIX + payload + "." + mac.sign(payload);
		TestUpstreams.SCRIPTED.clear();

		HttpResponse<String> answered = post("{\"jsonrpc\":\"2.0\",\"id\":\"" + former + "\",\"result\":{}}");

		assertThat(answered.statusCode()).isEqualTo(202);
		assertThat(RawHttp.json(TestUpstreams.SCRIPTED.lastSeen().body()).get("id").asText()).isEqualTo("srv-old");
	}

	private String openStream() {
		return http().send(http().request("scripted")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", "s-1")
			.GET()).body();
	}

	private HttpResponse<String> post(String body) {
		return http().send(http().post("scripted", body).header("Mcp-Session-Id", "s-1"));
	}

}
