package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.TestAuthorizationServer;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Mono;

/**
 * {@code security.mode: jwt} with real tokens from a real JWK Set: the caller's token never reaches an upstream, a
 * request with a token and a second credential is refused whichever is good, and a session opened by one subject
 * cannot be used, watched or ended by another subject's token.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class JwtCallerBindingTest {

	static final TestAuthorizationServer AUTH = new TestAuthorizationServer();

	static final ScriptedUpstream RECORDING = new ScriptedUpstream();

	static final String AUDIENCE = "mcp-relay-test";

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "jwt");
		registry.add("mcp-relay.security.jwt.issuer-uri", AUTH::issuer);
		registry.add("mcp-relay.security.jwt.audience", () -> AUDIENCE);
		registry.add("mcp-relay.servers.sdk.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.sdk.arguments.reserved-prefix", () -> "");
		registry.add("mcp-relay.servers.recording.url", () -> RECORDING.url("/mcp"));
	}

	@AfterAll
	static void stop() {
		AUTH.close();
		RECORDING.close();
	}

	@BeforeEach
	void answerEverything() {
		RECORDING.clear();
		RECORDING.script((request, response) -> response.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")));
	}

	@Test
	void theCallersTokenNeverReachesTheUpstream() {
		String token = AUTH.token(AUDIENCE, "alice", "mcp", Map.of());
		RawHttp alice = new RawHttp(port, "Authorization", "Bearer " + token);

		HttpResponse<String> post = alice.send(alice.post("recording", RawHttp.toolsCall(1, "echo")));
		HttpResponse<String> get = alice.send(alice.request("recording").header("Accept", "text/event-stream").GET());
		HttpResponse<String> delete = alice.send(alice.request("recording").DELETE());

		assertThat(List.of(post.statusCode(), get.statusCode(), delete.statusCode())).containsOnly(200);
		assertThat(RECORDING.seen()).hasSize(3).allSatisfy(seen -> {
			assertThat(seen.headers().containsHeader("Authorization")).as(seen.method()).isFalse();
			assertThat(seen.headers().toString()).as(seen.method()).doesNotContain(token);
		});
	}

	@Test
	void aTokenWithASecondCredentialIsRefusedWhicheverIsGood() {
		String good = AUTH.token(AUDIENCE, "alice", "mcp", Map.of());
		String bad = TestAuthorizationServer.sign(TestAuthorizationServer.newKey(),
				new com.nimbusds.jwt.JWTClaimsSet.Builder().subject("mallory").audience(AUDIENCE).build());
		RawHttp http = new RawHttp(port);

		List<HttpResponse<String>> refused = List.of(
				http.send(http.post("recording", RawHttp.toolsCall(1, "echo"))
					.header("Authorization", "Bearer " + good).header("X-Api-Key", "anything")),
				http.send(http.post("recording", RawHttp.toolsCall(1, "echo"))
					.header("Authorization", "Bearer " + good).header("Authorization", "Bearer " + bad)),
				http.send(http.post("recording", RawHttp.toolsCall(1, "echo"))
					.header("Authorization", "Bearer " + bad).header("Authorization", "Bearer " + good)));

		assertThat(refused).allSatisfy(response -> {
			assertThat(response.statusCode()).as(response.body()).isEqualTo(401);
			assertThat(ApiKeySecurityTest.reason(response)).isEqualTo("ambiguous_credentials");
			assertThat(response.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(challenge -> assertThat(
					challenge).contains("resource_metadata=").contains("error=\"invalid_request\""));
		});
		assertThat(RECORDING.seen()).as("nothing reached the upstream").isEmpty();
	}

	@Test
	void anotherSubjectCanNeitherUseWatchNorEndASession() {
		RawHttp alice = new RawHttp(port, "Authorization", "Bearer " + AUTH.token(AUDIENCE, "alice", "mcp", Map.of()));
		RawHttp bob = new RawHttp(port, "Authorization", "Bearer " + AUTH.token(AUDIENCE, "bob", "mcp", Map.of()));
		McpSession session = McpSession.open(alice, "sdk");
		RawHttp aliceAgain = new RawHttp(port, "Authorization",
				"Bearer " + AUTH.token(AUDIENCE, "alice", "mcp", Map.of("fresh", true)));

		for (HttpRequest.Builder attempt : List.of(bob.post("sdk", RawHttp.toolsCall(2, "echo")),
				bob.request("sdk").header("Accept", "text/event-stream").GET(), bob.request("sdk").DELETE())) {
			HttpResponse<String> refused = bob.send(attempt.header("Mcp-Session-Id", session.id())
				.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION));
			assertThat(refused.statusCode()).as(refused.body()).isEqualTo(404);
			assertThat(ApiKeySecurityTest.reason(refused)).isEqualTo("session_not_found");
		}
		HttpResponse<String> sameSubject = aliceAgain.send(aliceAgain
			.post("sdk", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION));
		assertThat(sameSubject.statusCode()).as("the same subject with a fresh token keeps its session: "
				+ sameSubject.body()).isEqualTo(200);
	}

}
