package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestAuthorizationServer;
import dev.mcprelay.testsupport.TestUpstreams;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code jwt} mode as an attacker meets it, with real RS256 tokens from a real JWK Set that counts its fetches, in front
 * of the SDK's stateful MCP server:
 * <ul>
 * <li>a token whose {@code client-claim} ({@code sub}) is missing, blank or no string names no caller: it is refused
 * 401 {@code missing_client_claim} on POST, GET and DELETE, also with another caller's session id, and counted;
 * before, every such token was one caller (the same sessions, quota and rate-limit buckets);</li>
 * <li>tokens naming made-up key ids, 100 at once and 100 one after the other, make the relay fetch the key set once;
 * before, each was a fetch.</li>
 * </ul>
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class JwtCallerAndKeyAttackTest {

	static final TestAuthorizationServer AUTH = new TestAuthorizationServer();

	static final String AUDIENCE = "mcp-relay-attacks";

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "jwt");
		registry.add("mcp-relay.security.jwt.jwk-set-uri", () -> AUTH.issuer() + "/jwks");
		registry.add("mcp-relay.security.jwt.issuer", AUTH::issuer);
		registry.add("mcp-relay.security.jwt.audience", () -> AUDIENCE);
		registry.add("mcp-relay.servers.sdk.url", () -> TestUpstreams.SDK.url("/mcp"));
	}

	@AfterAll
	static void stop() {
		AUTH.close();
	}

	/**
	 * Tokens whose {@code sub} names no caller, and the reason each is refused for. (A number is no such token: the JWT
	 * library reads a numeric {@code sub} as its decimal text, one caller per number; another claim that is no string
	 * is refused, {@code JwtDecodingTest}.)
	 */
	static List<Object[]> subjectsThatNameNoCaller() {
		return List.of(new Object[] { "no sub", null, "missing_client_claim" },
				new Object[] { "sub: \"\"", "", "missing_client_claim" },
				new Object[] { "sub: blank", "   ", "missing_client_claim" },
				new Object[] { "sub: a list (not a JWT the library reads)", List.of("alice"), "invalid_token" });
	}

	@ParameterizedTest(name = "{0}: refused on POST, GET and DELETE, also with another caller's session")
	@MethodSource("subjectsThatNameNoCaller")
	void aTokenThatNamesNoCallerIsRefused(String shape, Object subject, String reason) {
		RawHttp alice = bearer(token(claims().subject("alice")));
		McpSession session = McpSession.open(alice, "sdk");
		double before = refusals(reason);

		JWTClaimsSet.Builder claims = claims();
		if (subject != null) {
			claims.claim("sub", subject);
		}
		RawHttp nobody = bearer(token(claims));
		List<HttpResponse<String>> answers = List.of(
				nobody.send(nobody.post("sdk", McpSession.initialize(1))),
				nobody.send(nobody.post("sdk", RawHttp.toolsCall(2, "echo")).header("Mcp-Session-Id", session.id())),
				nobody.send(nobody.request("sdk").header("Accept", "text/event-stream")
					.header("Mcp-Session-Id", session.id()).GET()),
				nobody.send(nobody.request("sdk").header("Mcp-Session-Id", session.id()).DELETE()));

		assertThat(answers).allSatisfy(answer -> {
			assertThat(answer.statusCode()).as(shape + ": " + answer.body()).isEqualTo(401);
			assertThat(ApiKeySecurityTest.reason(answer)).isEqualTo(reason);
			assertThat(answer.headers().firstValue("WWW-Authenticate").orElseThrow())
				.contains("error=\"invalid_token\"");
		});
		assertThat(refusals(reason) - before).as("counted").isEqualTo(4);
		assertThat(session.post(RawHttp.toolsCall(3, "echo")).statusCode()).as("alice's session is untouched")
			.isEqualTo(200);
	}

	@Test
	void madeUpKeyIdsMakeTheRelayFetchTheKeySetOnce() {
		RawHttp alice = bearer(token(claims().subject("alice")));
		assertThat(alice.send(alice.post("sdk", McpSession.initialize(1))).statusCode()).isEqualTo(200);
		int fetches = AUTH.jwksRequests();

		List<CompletableFuture<HttpResponse<String>>> atOnce = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			RawHttp forged = bearer(forged());
			atOnce.add(CompletableFuture.supplyAsync(() -> forged.send(forged.post("sdk", McpSession.initialize(1)))));
		}
		List<HttpResponse<String>> answers = new ArrayList<>(atOnce.stream().map(CompletableFuture::join).toList());
		for (int i = 0; i < 100; i++) {
			RawHttp forged = bearer(forged());
			answers.add(forged.send(forged.post("sdk", McpSession.initialize(1))));
		}

		assertThat(answers).allSatisfy(answer -> {
			assertThat(answer.statusCode()).as(answer.body()).isEqualTo(401);
			assertThat(ApiKeySecurityTest.reason(answer)).isEqualTo("invalid_signature");
		});
		assertThat(AUTH.jwksRequests() - fetches)
			.as("200 tokens with made-up key ids, within one cool-down: at most one fetch").isLessThanOrEqualTo(1);
	}

	private double refusals(String reason) {
		return registry.find("mcp.relay.auth.failures").tag("reason", reason).counters().stream()
			.mapToDouble(counter -> counter.count())
			.sum();
	}

	private RawHttp bearer(String token) {
		return new RawHttp(port, "Authorization", "Bearer " + token);
	}

	private static final RSAKey STRANGER = TestAuthorizationServer.newKey();

	/** A token signed by a key nobody published, under a key id never used before. */
	private static String forged() {
		return TestAuthorizationServer.sign(new RSAKey.Builder(STRANGER).keyID(UUID.randomUUID().toString()).build(),
				claims().subject("mallory").build());
	}

	private static String token(JWTClaimsSet.Builder claims) {
		return TestAuthorizationServer.sign(AUTH.key(), claims.build());
	}

	private static JWTClaimsSet.Builder claims() {
		long now = System.currentTimeMillis();
		return new JWTClaimsSet.Builder().issuer(AUTH.issuer())
			.audience(AUDIENCE)
			.issueTime(new Date(now))
			.expirationTime(new Date(now + 300_000))
			.claim("scope", "mcp");
	}

}
