package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RawSocketHttp;
import dev.mcprelay.testsupport.TestAuthorizationServer;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * The credential a connection presented a moment before serves only a request on that connection presenting exactly
 * the same one, within {@link ValidatedTokens#KEPT} and never past the token's {@code exp}: on one kept-alive
 * connection, callers take turns (a good token, a forged one, another caller's, one without the scope) and each
 * request is answered for its own credential.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ConnectionCredentialTest {

	static final TestAuthorizationServer AUTH = new TestAuthorizationServer();

	static final String AUDIENCE = "mcp-relay-test";

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "jwt");
		registry.add("mcp-relay.security.jwt.issuer-uri", AUTH::issuer);
		registry.add("mcp-relay.security.jwt.audience", () -> AUDIENCE);
		registry.add("mcp-relay.security.jwt.required-scopes[0]", () -> "mcp");
		registry.add("mcp-relay.servers.sdk-json.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.sdk-json.arguments.inject[0].name", () -> "_tenant");
		registry.add("mcp-relay.servers.sdk-json.arguments.inject[0].from-caller-claim", () -> "tenant");
	}

	@AfterAll
	static void stop() {
		AUTH.close();
	}

	@Test
	void callersTakingTurnsOnOneConnectionAreEachAnsweredForTheirOwnCredential() {
		String alice = AUTH.token(AUDIENCE, "alice", "mcp", Map.of("tenant", "acme"));
		String bob = AUTH.token(AUDIENCE, "bob", "mcp", Map.of("tenant", "globex"));
		String forged = TestAuthorizationServer.sign(TestAuthorizationServer.newKey(),
				new com.nimbusds.jwt.JWTClaimsSet.Builder().issuer(AUTH.issuer()).audience(AUDIENCE).subject("alice")
					.claim("scope", "mcp").claim("tenant", "acme")
					.expirationTime(java.util.Date.from(Instant.now().plusSeconds(300))).build());
		String noScope = AUTH.token(AUDIENCE, "carol", "profile", Map.of("tenant", "initech"));

		try (RawSocketHttp.Connection connection = RawSocketHttp.open(port)) {
			assertThat(tenantOf(connection.exchange(whoami(alice)))).isEqualTo("acme");
			assertThat(tenantOf(connection.exchange(whoami(alice)))).as("the same credential again").isEqualTo("acme");
			RawSocketHttp.Response refused = connection.exchange(whoami(forged));
			assertThat(refused.status()).as("a forged token after a good one").isEqualTo(401);
			assertThat(tenantOf(connection.exchange(whoami(bob)))).as("another caller").isEqualTo("globex");
			assertThat(connection.exchange(whoami(noScope)).status()).as("a caller without the scope").isEqualTo(403);
			assertThat(tenantOf(connection.exchange(whoami(alice)))).as("the first caller again").isEqualTo("acme");
			assertThat(connection.exchange(whoami(null)).status()).as("no credential at all").isEqualTo(401);
		}
	}

	@Test
	void aKeptCredentialServesOnlyTheSameCredentialWithinItsLimits() {
		long now = System.nanoTime();
		JwtAuthenticationToken longLived = token(Instant.now().plusSeconds(3600));
		ConnectionCredential kept = ConnectionCredential.of("token-a", longLived, now);

		assertThat(kept.serves("token-a", now + 1)).isTrue();
		assertThat(kept.serves("token-b", now + 1)).as("another credential").isFalse();
		assertThat(kept.serves("token-a", now + ValidatedTokens.KEPT.toNanos())).as("after KEPT").isFalse();

		ConnectionCredential expiring = ConnectionCredential.of("token-c", token(Instant.now().plusSeconds(2)), now);
		assertThat(expiring.serves("token-c", now + TimeUnit.SECONDS.toNanos(1))).isTrue();
		assertThat(expiring.serves("token-c", now + TimeUnit.SECONDS.toNanos(3))).as("past its exp").isFalse();
		ConnectionCredential expired = ConnectionCredential.of("token-d", token(Instant.now().minusSeconds(1)), now);
		assertThat(expired.serves("token-d", now)).as("accepted within the clock skew, already past exp").isFalse();
		assertThat(ConnectionCredential.credentialOf(new BearerTokenAuthenticationToken("t"))).isEqualTo("t");
		assertThat(ConnectionCredential.credentialOf(ApiKeyAuthentication.presented("k"))).as("API keys are not kept")
			.isNull();
		assertThat(kept.toString()).doesNotContain("token-a");
	}

	private static JwtAuthenticationToken token(Instant expiry) {
		Jwt jwt = Jwt.withTokenValue("t").header("alg", "RS256").subject("alice").expiresAt(expiry)
			.issuedAt(expiry.minusSeconds(7200)).build();
		return new JwtAuthenticationToken(jwt, List.of(), "alice");
	}

	private String whoami(String token) {
		String body = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"whoami\","
				+ "\"arguments\":{\"message\":\"hi\"}}}";
		return "POST /mcp/sdk-json HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
				+ (token == null ? "" : "Authorization: Bearer " + token + "\r\n")
				+ "Content-Type: application/json\r\nAccept: " + RawHttp.ACCEPT_BOTH + "\r\nContent-Length: "
				+ body.length() + "\r\n\r\n" + body;
	}

	private static String tenantOf(RawSocketHttp.Response response) {
		assertThat(response.status()).as(response.body()).isEqualTo(200);
		String text = RawHttp.json(response.body()).at("/result/content/0/text").asText();
		int at = text.indexOf("\"_tenant\":\"");
		assertThat(at).as(text).isNotNegative();
		return text.substring(at + 11, text.indexOf('"', at + 11));
	}

}
