package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestAuthorizationServer;

/**
 * {@code security.jwt} settings other than the mode edited in the mounted file of a running relay in {@code jwt} mode,
 * with real tokens, a real MCP server (its {@code progress} tool holds a call's stream open) and a scripted server
 * that answers a GET at once and holds its stream open: a new {@code audience} refuses a token for the old one from its
 * next request (401), and ends its caller's open streams at once, the call streaming its answer and the GET stream
 * (reason {@code access_withdrawn}, counted), while a token the new audience accepts runs on, checked again without
 * fetching the unchanged JWK Set again; new {@code required-scopes} end the streams of a token without them; an
 * invalid edit is refused whole, the running settings serving.
 */
class JwtSettingsReloadTest {

	static TestAuthorizationServer auth;

	static SdkMcpUpstream upstream;

	static ScriptedUpstream streaming;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config("aud-one", "[]"))
		.peer(() -> auth = new TestAuthorizationServer())
		.peer(() -> upstream = new SdkMcpUpstream())
		.peer(() -> streaming = HeldStreams.getStreamingUpstream());

	@AfterEach
	void letHeldCallsGo() {
		upstream.releaseProgress();
	}

	@Test
	void aNewAudienceRefusesTheOldOnesTokensAndEndsTheirStreamsWhileAcceptedOnesRunOn() throws Exception {
		RawHttp alice = caller(auth.token("aud-one", "alice", "mcp", Map.of()));
		RawHttp bob = caller(auth.token("aud-one", "bob", "mcp", Map.of("aud", List.of("aud-one", "aud-two"))));
		upstream.resetProgressGate();
		HttpResponse<InputStream> aliceCall = HeldStreams.call(live.relay(), alice, "alpha", 21);
		HttpResponse<InputStream> bobCall = HeldStreams.call(live.relay(), bob, "alpha", 22);
		HttpResponse<InputStream> aliceGet = HeldStreams.get(alice, "streaming");
		double alphaEnded = live.relay().streamsEnded("alpha");
		double streamingEnded = live.relay().streamsEnded("streaming");
		int fetches = auth.jwksRequests();

		live.reload(config("aud-two", "[]"), ReloadOutcome.APPLIED);

		HeldStreams.assertEndedWith(aliceCall, 21, "access_withdrawn");
		assertThat(RawHttp.readAll(aliceGet.body())).as("alice's GET stream ends, cleanly").isNotNull();
		assertThat(live.relay().streamsEnded("alpha")).as("alice's call, counted").isEqualTo(alphaEnded + 1);
		assertThat(live.relay().streamsEnded("streaming")).as("alice's GET stream, counted").isEqualTo(streamingEnded + 1);
		upstream.releaseProgress();
		HeldStreams.assertAnswered(bobCall, 22);
		assertThat(status(alice)).as("alice's token, for the old audience, on its next request").isEqualTo(401);
		assertThat(status(bob)).isEqualTo(200);
		assertThat(auth.jwksRequests()).as("the JWK Set of an unchanged issuer, kept").isEqualTo(fetches);
	}

	@Test
	void newRequiredScopesEndTheStreamsOfATokenWithoutThem() throws Exception {
		RawHttp plain = caller(auth.token("aud-one", "carol", "mcp", Map.of()));
		RawHttp admin = caller(auth.token("aud-one", "dave", "mcp mcp.admin", Map.of()));
		upstream.resetProgressGate();
		HttpResponse<InputStream> plainCall = HeldStreams.call(live.relay(), plain, "alpha", 31);
		HttpResponse<InputStream> adminCall = HeldStreams.call(live.relay(), admin, "alpha", 32);

		live.reload(config("aud-one", "[mcp.admin]"), ReloadOutcome.APPLIED);

		HeldStreams.assertEndedWith(plainCall, 31, "access_withdrawn");
		upstream.releaseProgress();
		HeldStreams.assertAnswered(adminCall, 32);
		assertThat(status(plain)).isEqualTo(403);
	}

	@Test
	void anInvalidJwtEditIsRefusedWholeAndTheRunningSettingsServe() throws Exception {
		RawHttp alice = caller(auth.token("aud-one", "alice", "mcp", Map.of()));
		String running = live.relay().checksum();

		live.reload(config("aud-two", "[]").replace("      audience:",
				"      jwk-set-uri: " + auth.issuer() + "/jwks\n      audience:"), ReloadOutcome.REFUSED);

		assertThat(live.relay().checksum()).isEqualTo(running);
		assertThat(status(alice)).as("the running audience").isEqualTo(200);
	}

	private static int status(RawHttp http) {
		return http.send(http.post("alpha", McpSession.initialize(1))).statusCode();
	}

	private static RawHttp caller(String token) {
		return live.http("Authorization", "Bearer " + token);
	}

	static String config(String audience, String requiredScopes) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: jwt\n    jwt:\n"
				+ "      issuer-uri: " + auth.issuer() + "\n      audience: " + audience + "\n      required-scopes: "
				+ requiredScopes + "\n  servers:\n    alpha:\n      url: " + upstream.url("/mcp") + "\n    streaming:\n"
				+ "      url: " + streaming.url("/mcp") + "\n";
	}

}
