package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Date;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestAuthorizationServer.JwksFault;
import dev.mcprelay.testsupport.TestAuthorizationServer;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * {@code jwt} mode, with keys from {@code jwk-set-uri} and {@code issuer} or from {@code issuer-uri} (a subclass
 * each): a key source that cannot be read, however it fails
 * (an error status, a body that is no key set, no answer, a refused connection), is 503 {@code authentication_unavailable}
 * for a token whose key the relay has not seen, never a 401 that blames the token; tokens signed with a key already
 * fetched keep working meanwhile; the issuer is checked and published; tokens without {@code scope}, with {@code scp},
 * or with scopes as a list, are read, never a crash.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class JwtKeySourceFailures {

	static final String AUDIENCE = "mcp-relay-keys";

	@LocalServerPort
	int port;

	/** The authorization server of the subclass's relay. */
	abstract TestAuthorizationServer auth();

	/** The issuer its tokens carry. */
	abstract String issuer();

	/** The servers every subclass's relay has. */
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "jwt");
		registry.add("mcp-relay.security.jwt.audience", () -> AUDIENCE);
		// Every unknown key fetches: these classes are about what a fetch's failure answers (the cool-down: JwkSetKeysTest).
		registry.add("mcp-relay.security.jwt.jwk-set-refetch-cooldown", () -> "0s");
		registry.add("mcp-relay.servers.sdk-json.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.scoped.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.scoped.allowed-scopes[0]", () -> "mcp:read");
	}

	@Test
	@Order(1)
	void theIssuerIsCheckedAndPublished() {
		assertThat(send(token(claims(issuer()).claim("scope", "mcp"), auth().key())).statusCode()).isEqualTo(200);
		HttpResponse<String> foreign = send(token(claims("https://evil.example.com").claim("scope", "mcp"), auth().key()));
		assertThat(foreign.statusCode()).isEqualTo(401);
		assertThat(ApiKeySecurityTest.reason(foreign)).isEqualTo("invalid_issuer");

		JsonNode metadata = RawHttp.json(new RawHttp(port).send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
				+ port + "/.well-known/oauth-protected-resource/mcp/sdk-json")).timeout(Duration.ofSeconds(10))).body());
		assertThat(metadata.path("authorization_servers").toString()).as("an MCP client can find where to log in")
			.isEqualTo("[\"" + issuer() + "\"]");
	}

	@Test
	@Order(2)
	void scopesAreReadInEveryShapeAndAbsentScopesAreNone() {
		assertThat(send(token(claims(issuer()), auth().key())).statusCode()).as("no scope claim at all").isEqualTo(200);
		assertThat(sendTo("scoped", token(claims(issuer()), auth().key())).statusCode()).as("and it opens no scoped server")
			.isEqualTo(403);
		assertThat(sendTo("scoped", token(claims(issuer()).claim("scope", "openid mcp:read"), auth().key())).statusCode())
			.as("a space-separated scope").isEqualTo(200);
		assertThat(sendTo("scoped", token(claims(issuer()).claim("scp", java.util.List.of("mcp:read")), auth().key()))
			.statusCode()).as("scp as a list").isEqualTo(200);
		assertThat(sendTo("scoped", token(claims(issuer()).claim("scp", "mcp:read"), auth().key())).statusCode())
			.as("scp as a string").isEqualTo(200);
		assertThat(send(token(claims(issuer()).claim("scope", null).claim("tenant", null), auth().key())).statusCode())
			.as("claims that are null").isEqualTo(200);
		assertThat(send(token(claims(issuer()).claim("scope", 42), auth().key())).statusCode())
			.as("a scope that is no text is no scope, not a crash").isIn(200, 401);
	}

	@ParameterizedTest(name = "a key source that fails with {0} is 503, and known keys still work")
	@EnumSource(value = JwksFault.class, names = { "UNAVAILABLE", "SERVER_ERROR", "NOT_JSON", "HANGS" })
	@Order(3)
	void aKeySourceThatCannotBeReadIsUnavailableNeverTheTokensFault(JwksFault fault) {
		String known = token(claims(issuer()).claim("scope", "mcp"), auth().key());
		assertThat(send(known).statusCode()).isEqualTo(200);
		auth().fault(fault);
		try {
			HttpResponse<String> unseenKey = send(token(claims(issuer()), TestAuthorizationServer.newKey()));
			assertThat(unseenKey.statusCode()).as(fault + ": " + unseenKey.body()).isEqualTo(503);
			assertThat(ApiKeySecurityTest.reason(unseenKey)).isEqualTo("authentication_unavailable");
			assertThat(send(known).statusCode()).as("a token with a key already fetched still works").isEqualTo(200);
		}
		finally {
			auth().fault(JwksFault.NONE);
		}
	}

	@Test
	@Order(4)
	void aKeySourceThatRefusesConnectionsIsUnavailableNeverTheTokensFault() {
		String known = token(claims(issuer()).claim("scope", "mcp"), auth().key());
		assertThat(send(known).statusCode()).isEqualTo(200);
		RSAKey unseen = TestAuthorizationServer.newKey();
		auth().close();

		HttpResponse<String> refused = send(token(claims(issuer()), unseen));

		assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
		assertThat(ApiKeySecurityTest.reason(refused)).isEqualTo("authentication_unavailable");
		assertThat(send(known).statusCode()).as("a token with a key already fetched still works").isEqualTo(200);
	}

	private JWTClaimsSet.Builder claims(String issuer) {
		long now = System.currentTimeMillis();
		return new JWTClaimsSet.Builder().issuer(issuer).audience(AUDIENCE).subject("alice")
			.issueTime(new Date(now)).expirationTime(new Date(now + 300_000));
	}

	private static String token(JWTClaimsSet.Builder claims, RSAKey key) {
		return TestAuthorizationServer.sign(key, claims.build());
	}

	private HttpResponse<String> send(String token) {
		return sendTo("sdk-json", token);
	}

	private HttpResponse<String> sendTo(String server, String token) {
		RawHttp http = new RawHttp(port);
		return http.send(http.post(server, RawHttp.toolsCall(1, "echo")).header("Authorization", "Bearer " + token));
	}

}
