package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Map;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestAuthorizationServer;

/**
 * A merged GET reads only the members its own token may use, also when that token cannot be checked again by a
 * reload's new JWT settings. Review 44p P-M1: the reload made a new key set while the authorization server is down; a
 * call of a wider token of the same subject, admitted before, opens alpha, which the GET's narrower token was never
 * granted: nothing of alpha reaches that GET (the check that cannot be made ends nothing, and grants nothing either).
 * And (P-M3) a GET whose token has merely expired since is judged by the grant it was accepted with: a member joined
 * again after a restart is read on it. And (review 44q Q-M1) a token that cannot be checked again still loses what the
 * reload's configuration takes from its scopes as they were: its GET and its call to a member narrowed away end.
 * Real tokens from a real JWK Set, two MCP Java SDK members.
 */
class JwtGetGateUncheckedTokenTest {

	static final String AUDIENCE = "mcp-relay-test";

	static TestAuthorizationServer auth;

	static SdkMcpUpstream alpha;

	static SdkMcpUpstream beta;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config("5m"))
		.peer(() -> auth = new TestAuthorizationServer())
		.peer(() -> alpha = new SdkMcpUpstream())
		.peer(() -> {
			beta = new SdkMcpUpstream();
			return () -> beta.close(); // the one running at the end: a test restarts it
		});

	@Test
	void aTokenThatCannotBeCheckedAgainReadsNoMemberItWasNotGranted() throws Exception {
		String wideToken = auth.token(AUDIENCE, "u1", "mcp a", Map.of());
		RawHttp wide = live.http("Authorization", "Bearer " + wideToken);
		RawHttp narrow = live.http("Authorization", "Bearer " + auth.token(AUDIENCE, "u1", "mcp", Map.of()));
		int alphaGets = alpha.getsServed();
		int betaGets = beta.getsServed();
		McpSession session = McpSession.open(wide, "v");
		Awaitility.await("both member streams open for the session").atMost(Duration.ofSeconds(20))
			.until(() -> alpha.getsServed() == alphaGets + 1 && beta.getsServed() == betaGets + 1);
		try (OpenSse narrowGet = get(narrow, session)) {
			beta.notifyToolsListChanged();
			assertThat(narrowGet.next().path("method").asText()).as("beta's events reach the narrower token's GET")
				.isEqualTo("notifications/tools/list_changed");
			try (SlowCall call = SlowCall.begin(live, session, "Authorization: Bearer " + wideToken,
					RawHttp.toolsCall(7, "alpha_echo"))) {
				auth.down(true);
				live.reload(config("7m"), ReloadOutcome.APPLIED);
				int alphaGetsBefore = alpha.getsServed();

				assertThat(call.finish()).as("the wider token's call, admitted before, runs on").contains("\"result\"");
				// the call had alpha's stream opened, refused on the narrower token's GET (review 44p P-M2: what alpha
				// asks the client there is answered to alpha, never carried to that GET)
				Awaitility.await("alpha is asked for a stream for the call").atMost(Duration.ofSeconds(10))
					.until(() -> alpha.getsServed() > alphaGetsBefore);
				alpha.notifyToolsListChanged();
				Awaitility.await("nothing of alpha's reaches the narrower token's GET")
					.pollDelay(Duration.ofMillis(100)).during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5))
					.until(() -> narrowGet.received().size() == 1);
				assertThat(narrowGet.ended()).as("the GET runs on: a check that cannot be made ends nothing").isFalse();
			}
			finally {
				auth.down(false);
			}
		}
	}

	/**
	 * Review 44q Q-M1: one reload makes a new decoder while the authorization server is down and narrows alpha's
	 * {@code allowed-scopes} away from the token: the token cannot be checked again, but the narrowing applies to it as
	 * it was accepted, so its merged GET, which read alpha, ends, and its call to alpha admitted before is refused.
	 */
	@Test
	void aTokenThatCannotBeCheckedAgainLosesWhatTheReloadNarrowedAway() throws Exception {
		String token = auth.token(AUDIENCE, "u1", "mcp a", Map.of());
		RawHttp http = live.http("Authorization", "Bearer " + token);
		int alphaGets = alpha.getsServed();
		McpSession session = McpSession.open(http, "v");
		Awaitility.await("alpha's stream opens for the session").atMost(Duration.ofSeconds(20))
			.until(() -> alpha.getsServed() == alphaGets + 1);
		try (OpenSse get = get(http, session)) {
			alpha.notifyToolsListChanged();
			assertThat(get.next().path("method").asText()).as("alpha's events reach the GET")
				.isEqualTo("notifications/tools/list_changed");
			try (SlowCall call = SlowCall.begin(live, session, "Authorization: Bearer " + token,
					RawHttp.toolsCall(7, "alpha_echo"))) {
				auth.down(true);
				live.reload(config("7m", "[b]"), ReloadOutcome.APPLIED);

				Awaitility.await("the GET that read alpha ends").atMost(Duration.ofSeconds(20)).until(get::ended);
				assertThat(call.finish()).as("the call to alpha, admitted before, is refused")
					.contains("access_withdrawn")
					.doesNotContain("\"result\"");
			}
			finally {
				auth.down(false);
			}
		}
	}

	/**
	 * Review 44p P-M3: after a reload that made a new JWT decoder, the GET's token has expired (the relay does not end a
	 * GET at its token's {@code exp}); beta restarts and is joined again by a call with a fresh token of the same
	 * subject: its new stream opens on that GET, judged by the token's grant as it was accepted (expiry is no revocation).
	 */
	@Test
	void aGetWhoseTokenExpiredSinceReadsAMemberJoinedAgain() throws Exception {
		// valid for about 15 s with the decoder's 60 s of clock skew
		Instant now = Instant.now();
		String shortLived = auth.token(AUDIENCE, "u1", "mcp", Map.of("iat", Date.from(now.minusSeconds(120)), "nbf",
				Date.from(now.minusSeconds(120)), "exp", Date.from(now.minusSeconds(45))));
		Instant expired = now.plusSeconds(16);
		RawHttp fresh = live.http("Authorization", "Bearer " + auth.token(AUDIENCE, "u1", "mcp", Map.of()));
		McpSession session = McpSession.open(fresh, "v");
		int port = URI.create(beta.url("/mcp")).getPort();
		try (OpenSse get = get(live.http("Authorization", "Bearer " + shortLived), session)) {
			beta.notifyToolsListChanged();
			assertThat(get.next().path("method").asText()).as("beta's events reach the GET")
				.isEqualTo("notifications/tools/list_changed");
			live.reload(config("7m"), ReloadOutcome.APPLIED);
			Awaitility.await("the GET's token expired").atMost(Duration.ofSeconds(60))
				.until(() -> Instant.now().isAfter(expired));

			beta.close();
			beta = SdkMcpUpstream.onPort(port);
			SdkMcpUpstream member = beta;
			JsonNode answered = answer(session.post(RawHttp.toolsCall(8, "beta_echo")), 8);
			assertThat(answered.path("result").isObject()).as("the fresh token's call to beta: %s", answered).isTrue();
			Awaitility.await("the restarted beta is asked for a stream").atMost(Duration.ofSeconds(20))
				.until(() -> member.getsServed() >= 1);
			int before = get.received().size();
			member.notifyToolsListChanged();
			Awaitility.await("beta's events reach the GET again").atMost(Duration.ofSeconds(20))
				.until(() -> get.received().size() > before);
			assertThat(get.ended()).as("the GET runs on").isFalse();
		}
	}

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

	/** The configuration, alpha open to tokens with scope {@code a}, the key set refreshed every {@code refresh}. */
	static String config(String refresh) {
		return config(refresh, "[a]");
	}

	/** The configuration, alpha open to tokens with the scopes {@code alphaScopes}. */
	static String config(String refresh, String alphaScopes) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: jwt\n    jwt:\n"
				+ "      issuer-uri: " + auth.issuer() + "\n      audience: " + AUDIENCE
				+ "\n      jwk-set-refresh-interval: " + refresh + "\n  servers:\n    alpha:\n"
				+ "      url: " + alpha.url("/mcp") + "\n      allowed-scopes: " + alphaScopes + "\n    beta:\n"
				+ "      url: " + beta.url("/mcp") + "\n  virtual-servers:\n    v:\n      members: [alpha, beta]\n";
	}

}
