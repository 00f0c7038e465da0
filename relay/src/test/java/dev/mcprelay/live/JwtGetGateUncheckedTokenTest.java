package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestAuthorizationServer;

/**
 * A merged GET reads only the members its own token may use, also when that token cannot be checked again by a
 * reload's new JWT settings. Review 44p P-M1: the reload made a new key set while the authorization server is down; a
 * call of a wider token of the same subject, admitted before, opens alpha, which the GET's narrower token was never
 * granted: nothing of alpha reaches that GET (the check that cannot be made ends nothing, and grants nothing either).
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
		.peer(() -> beta = new SdkMcpUpstream());

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
				alpha.notifyToolsListChanged();
				Awaitility.await("nothing of alpha's reaches the narrower token's GET, and alpha is not asked for a stream")
					.pollDelay(Duration.ofMillis(100)).during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5))
					.until(() -> narrowGet.received().size() == 1 && alpha.getsServed() == alphaGetsBefore);
				assertThat(narrowGet.ended()).as("the GET runs on: a check that cannot be made ends nothing").isFalse();
			}
			finally {
				auth.down(false);
			}
		}
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
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: jwt\n    jwt:\n"
				+ "      issuer-uri: " + auth.issuer() + "\n      audience: " + AUDIENCE
				+ "\n      jwk-set-refresh-interval: " + refresh + "\n  servers:\n    alpha:\n"
				+ "      url: " + alpha.url("/mcp") + "\n      allowed-scopes: [a]\n    beta:\n"
				+ "      url: " + beta.url("/mcp") + "\n  virtual-servers:\n    v:\n      members: [alpha, beta]\n";
	}

}
