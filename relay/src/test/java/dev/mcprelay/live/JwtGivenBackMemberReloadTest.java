package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestAuthorizationServer;

/**
 * Review 44n N-M2: in {@code security.mode: jwt} a member is taken from a token and given back by its server's
 * {@code allowed-scopes}, a setting of who may use the server, not of how it is reached: the member given back is read
 * at once on the GET the client reopened on the narrower set (as one given back by an API key's {@code servers}), and
 * a call to it that asks the client for sampling completes; taken away again, it ends that GET. And (review 44o O-H2)
 * a merged GET carries only what its own token may use: a wider token of the same subject calling a member the GET's
 * token may not use opens nothing of that member on it. Real tokens from a real JWK Set, two MCP Java SDK members.
 */
class JwtGivenBackMemberReloadTest {

	static final String AUDIENCE = "mcp-relay-test";

	static TestAuthorizationServer auth;

	static SdkMcpUpstream alpha;

	static SdkMcpUpstream beta;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config("[a, b]"))
		.peer(() -> auth = new TestAuthorizationServer())
		.peer(() -> alpha = new SdkMcpUpstream())
		.peer(() -> beta = new SdkMcpUpstream());

	@Test
	void aMemberGivenBackByItsAllowedScopesIsReadOnTheGetTheClientHas() throws Exception {
		RawHttp http = live.http("Authorization", "Bearer " + auth.token(AUDIENCE, "u1", "mcp a", Map.of()));
		int alphaGets = alpha.getsServed();
		int betaGets = beta.getsServed();
		McpSession session = McpSession.open(http, "v", "{\"sampling\":{}}");
		try (OpenSse before = get(http, session)) {
			Awaitility.await("both member streams open").atMost(Duration.ofSeconds(20))
				.until(() -> alpha.getsServed() == alphaGets + 1 && beta.getsServed() == betaGets + 1);
			double endedV = live.relay().streamsEnded("v");
			double endedAlpha = live.relay().streamsEnded("alpha");
			live.reload(config("[b]"), ReloadOutcome.APPLIED);
			before.awaitEnd();
			// review 44o O-L1: the client's one GET, counted once under the virtual server, as an API key's narrowing
			// counts it; the member's stream inside it is the relay's own
			Awaitility.await("one GET ended, counted once").pollDelay(Duration.ofMillis(100))
				.during(Duration.ofMillis(1000)).atMost(Duration.ofSeconds(5))
				.until(() -> live.relay().streamsEnded("v") == endedV + 1
						&& live.relay().streamsEnded("alpha") == endedAlpha);
		}
		try (OpenSse reopened = get(http, session)) {
			live.reload(config("[a, b]"), ReloadOutcome.APPLIED);
			Awaitility.await("alpha's stream is opened again on the GET the client has").atMost(Duration.ofSeconds(20))
				.until(() -> alpha.getsServed() == alphaGets + 2);
			alpha.notifyToolsListChanged();
			assertThat(reopened.next().path("method").asText()).as("alpha's events reach the token again")
				.isEqualTo("notifications/tools/list_changed");

			try (OpenSse call = new OpenSse(http.open(session.request(RawHttp.toolsCall(9, "alpha_ask-model"))))) {
				// the SDK's server asks on the call's stream; a member may ask on its GET stream: either reaches the client
				JsonNode asked = Awaitility.await("alpha asks the client for sampling").atMost(Duration.ofSeconds(20))
					.until(() -> Stream.concat(call.received().stream(), reopened.received().stream())
						.filter(event -> event.path("method").asText().equals("sampling/createMessage"))
						.findFirst()
						.orElse(null), Objects::nonNull);
				assertThat(session.post("{\"jsonrpc\":\"2.0\",\"id\":" + asked.path("id") + ",\"result\":{\"role\":"
						+ "\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"hi\"},\"model\":\"m\"}}").statusCode())
					.as("the client's answer").isEqualTo(202);
				JsonNode result = call.awaitEnd().stream().filter(event -> event.has("result") || event.has("error"))
					.reduce((first, last) -> last).orElseThrow();
				assertThat(result.path("id").asInt()).isEqualTo(9);
				assertThat(result.at("/result/content/0/text").asText()).as("%s", result).isEqualTo("model said: hi");
			}

			// and taken away again by its allowed-scopes, the member given back ends the GET (review 44n N-H1)
			live.reload(config("[b]"), ReloadOutcome.APPLIED);
			reopened.awaitEnd();
		}
	}

	@Test
	void aWiderTokenOfTheSameSubjectOpensNothingOnTheGetOfANarrowerOne() throws Exception {
		RawHttp wide = live.http("Authorization", "Bearer " + auth.token(AUDIENCE, "u1", "mcp a", Map.of()));
		RawHttp narrow = live.http("Authorization", "Bearer " + auth.token(AUDIENCE, "u1", "mcp", Map.of()));
		int alphaGets = alpha.getsServed();
		int betaGets = beta.getsServed();
		McpSession session = McpSession.open(wide, "v");
		Awaitility.await("both member streams open for the session").atMost(Duration.ofSeconds(20))
			.until(() -> alpha.getsServed() == alphaGets + 1 && beta.getsServed() == betaGets + 1);
		JsonNode refused = answer(narrow.send(narrow.post("v", RawHttp.toolsCall(6, "alpha_echo"))
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)), 6);
		assertThat(refused.at("/error/data/reason").asText()).as("the narrower token may not use alpha: %s", refused)
			.isEqualTo("unknown_tool");
		try (OpenSse narrowGet = get(narrow, session)) {
			beta.notifyToolsListChanged();
			assertThat(narrowGet.next().path("method").asText()).as("beta's events reach the narrower token's GET")
				.isEqualTo("notifications/tools/list_changed");
			int alphaGetsBefore = alpha.getsServed();

			JsonNode answered = answer(session.post(RawHttp.toolsCall(7, "alpha_echo")), 7);
			assertThat(answered.path("result").isObject()).as("the wider token's call to alpha: %s", answered).isTrue();
			// the call had alpha's stream opened, refused on the narrower token's GET (review 44p P-M2: what alpha
			// asks the client there is answered to alpha, never carried to that GET)
			assertThat(alpha.getsServed()).as("alpha is asked for a stream for the call").isGreaterThan(alphaGetsBefore);
			alpha.notifyToolsListChanged();
			Awaitility.await("nothing of alpha's reaches the narrower token's GET")
				.pollDelay(Duration.ofMillis(100)).during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5))
				.until(() -> narrowGet.received().size() == 1);
			assertThat(narrowGet.ended()).as("the GET runs on").isFalse();
		}
	}

	/** The response with id {@code id} among {@code response}'s messages. */
	private static JsonNode answer(HttpResponse<String> response, int id) {
		return RawHttp.messagesOf(response).stream().filter(message -> message.path("id").asInt(-1) == id)
			.findFirst().orElseThrow(() -> new AssertionError(response.statusCode() + " " + response.body()));
	}

	private static OpenSse get(RawHttp http, McpSession session) {
		return new OpenSse(http.open(http.request("v")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.GET()));
	}

	/** The configuration, alpha open to tokens with one of {@code alphaScopes}. */
	static String config(String alphaScopes) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: jwt\n    jwt:\n"
				+ "      issuer-uri: " + auth.issuer() + "\n      audience: " + AUDIENCE + "\n  servers:\n    alpha:\n"
				+ "      url: " + alpha.url("/mcp") + "\n      allowed-scopes: " + alphaScopes + "\n    beta:\n"
				+ "      url: " + beta.url("/mcp") + "\n  virtual-servers:\n    v:\n      members: [alpha, beta]\n";
	}

}
