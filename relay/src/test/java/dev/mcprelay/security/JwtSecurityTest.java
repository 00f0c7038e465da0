package dev.mcprelay.security;

import static dev.mcprelay.security.ApiKeySecurityTest.reason;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RawSocketHttp;
import dev.mcprelay.testsupport.TestAuthorizationServer;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.WebFluxExchanges;

/**
 * {@code security.mode: jwt} against a real authorization server's metadata and JWK Set (started by the test, with
 * keys it makes), in front of the SDK's MCP server: a valid token is served and its claims flow into injected
 * arguments; every kind of bad token is refused 401 with its reason and a challenge that points at the RFC 9728
 * metadata, which is served; missing scopes are 403; a key source that is down is 503, not a hang.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureMetrics
@Import(WebFluxExchanges.class)
class JwtSecurityTest {

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
		// Every unknown key fetches: this class is about what a fetch's failure answers (the cool-down: JwkSetKeysTest).
		registry.add("mcp-relay.security.jwt.jwk-set-refetch-cooldown", () -> "0s");
		registry.add("mcp-relay.security.jwt.management-scopes[0]", () -> "relay:metrics");
		registry.add("mcp-relay.servers.sdk-json.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.sdk-json.arguments.inject[0].name", () -> "_tenant");
		registry.add("mcp-relay.servers.sdk-json.arguments.inject[0].from-caller-claim", () -> "tenant");
		registry.add("mcp-relay.servers.admin.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.admin.allowed-scopes[0]", () -> "mcp:admin");
	}

	@AfterAll
	static void stop() {
		AUTH.close();
	}

	@Test
	void aValidTokenIsServedAndItsClaimsAreInjected() {
		String token = AUTH.token(AUDIENCE, "alice", "mcp", Map.of("tenant", "acme"));
		WebFluxExchanges.PATHS.clear();

		HttpResponse<String> initialize = send(post("sdk-json", McpSession.initialize(1)), token);
		HttpResponse<String> whoami = send(post("sdk-json", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"whoami\",\"arguments\":{\"message\":\"hi\"}}}"), token);

		assertThat(initialize.statusCode()).as(initialize.body()).isEqualTo(200);
		assertThat(whoami.statusCode()).as(whoami.body()).isEqualTo(200);
		assertThat(RawHttp.json(whoami.body()).at("/result/content/0/text").asText()).contains("\"_tenant\":\"acme\"");
		assertThat(WebFluxExchanges.PATHS).as("served on Reactor Netty's route, not as WebFlux exchanges").isEmpty();
	}

	@Test
	void noTokenIsAChallengeThatPointsAtTheMetadataWhichIsServed() {
		HttpResponse<String> refused = new RawHttp(port).send(post("sdk-json", RawHttp.toolsCall(1, "echo")));

		assertThat(refused.statusCode()).isEqualTo(401);
		assertThat(reason(refused)).isEqualTo("missing_credentials");
		String metadataUrl = "http://127.0.0.1:" + port + "/.well-known/oauth-protected-resource/mcp/sdk-json";
		assertThat(refused.headers().firstValue("WWW-Authenticate"))
			.hasValue("Bearer resource_metadata=\"" + metadataUrl + "\"");

		HttpResponse<String> metadata = new RawHttp(port)
			.send(HttpRequest.newBuilder(URI.create(metadataUrl)).timeout(Duration.ofSeconds(10)));
		assertThat(metadata.statusCode()).isEqualTo(200);
		JsonNode document = RawHttp.json(metadata.body());
		assertThat(document.path("resource").asText()).isEqualTo("http://127.0.0.1:" + port + "/mcp/sdk-json");
		assertThat(document.path("authorization_servers").get(0).asText()).isEqualTo(AUTH.issuer());
		assertThat(document.path("scopes_supported").toString()).isEqualTo("[\"mcp\"]");
		assertThat(document.path("bearer_methods_supported").toString()).isEqualTo("[\"header\"]");
		JsonNode admin = RawHttp.json(new RawHttp(port).send(HttpRequest.newBuilder(URI.create(
				"http://127.0.0.1:" + port + "/.well-known/oauth-protected-resource/admin/mcp"))).body());
		assertThat(admin.path("scopes_supported").toString()).isEqualTo("[\"mcp\",\"mcp:admin\"]");
		assertThat(admin.path("resource").asText()).endsWith("/admin/mcp");
		JsonNode unknown = RawHttp.json(new RawHttp(port).send(HttpRequest.newBuilder(URI.create(
				"http://127.0.0.1:" + port + "/.well-known/oauth-protected-resource/mcp/nothing-here"))).body());
		assertThat(unknown.path("scopes_supported").toString()).as("tells nothing of which servers exist")
			.isEqualTo("[\"mcp\"]");
	}

	@Test
	void everyKindOfBadTokenIsRefusedWithItsReason() {
		Instant now = Instant.now();
		assertThat(refusal(claims(now.minusSeconds(600), now.minusSeconds(300)).issuer(AUTH.issuer()).build(), AUTH.key()))
			.isEqualTo("token_expired");
		assertThat(refusal(claims(now.plusSeconds(300), now.plusSeconds(600)).issuer(AUTH.issuer()).build(), AUTH.key()))
			.isEqualTo("token_not_yet_valid");
		assertThat(refusal(valid().audience("someone-else").build(), AUTH.key())).isEqualTo("invalid_audience");
		assertThat(refusal(valid().issuer("https://evil.example.com").build(), AUTH.key())).isEqualTo("invalid_issuer");
		RSAKey stranger = TestAuthorizationServer.newKey();
		assertThat(refusal(valid().build(), stranger)).as("a key the JWK Set does not have").isEqualTo("invalid_signature");
		RSAKey impostor = new RSAKey.Builder(TestAuthorizationServer.newKey()).keyID(AUTH.key().getKeyID()).build();
		assertThat(refusal(valid().build(), impostor)).as("the right key id, the wrong key").isEqualTo("invalid_signature");
		String unsigned = new PlainJWT(valid().build()).serialize();
		HttpResponse<String> none = send(post("sdk-json", RawHttp.toolsCall(1, "echo")), unsigned);
		assertThat(none.statusCode()).as("alg: none").isEqualTo(401);
		String good = AUTH.token(AUDIENCE, "alice", "mcp", Map.of());
		HttpResponse<String> truncated = send(post("sdk-json", RawHttp.toolsCall(1, "echo")),
				good.substring(0, good.lastIndexOf('.')));
		assertThat(truncated.statusCode()).isEqualTo(401);
		assertThat(reason(truncated)).isEqualTo("malformed_token");
		HttpResponse<String> malformed = new RawHttp(port)
			.send(post("sdk-json", RawHttp.toolsCall(1, "echo")).header("Authorization", "Bearer two words"));
		assertThat(reason(malformed)).as("a bearer that is no token at all").isEqualTo("malformed_token");
		HttpResponse<String> expired = send(post("sdk-json", RawHttp.toolsCall(1, "echo")),
				TestAuthorizationServer.sign(AUTH.key(),
						claims(now.minusSeconds(600), now.minusSeconds(300)).issuer(AUTH.issuer()).build()));
		assertThat(expired.headers().firstValue("WWW-Authenticate").orElseThrow())
			.startsWith("Bearer resource_metadata=\"")
			.contains("error=\"invalid_token\"");
	}

	@Test
	void missingScopesAreForbiddenWithTheScopesThatWouldDo() {
		String plain = AUTH.token(AUDIENCE, "alice", "mcp", Map.of());
		String noScope = AUTH.token(AUDIENCE, "alice", "profile", Map.of());
		String admin = AUTH.token(AUDIENCE, "root", "mcp mcp:admin", Map.of());

		HttpResponse<String> required = send(post("sdk-json", RawHttp.toolsCall(1, "echo")), noScope);
		assertThat(required.statusCode()).isEqualTo(403);
		assertThat(reason(required)).isEqualTo("insufficient_scope");
		assertThat(required.headers().firstValue("WWW-Authenticate").orElseThrow())
			.contains("error=\"insufficient_scope\", scope=\"mcp\"");
		HttpResponse<String> perServer = send(post("admin", RawHttp.toolsCall(1, "echo")), plain);
		assertThat(perServer.statusCode()).isEqualTo(403);
		assertThat(perServer.headers().firstValue("WWW-Authenticate").orElseThrow()).contains("scope=\"mcp:admin\"");
		assertThat(send(post("admin", RawHttp.toolsCall(1, "echo")), admin).statusCode()).isEqualTo(200);
	}

	@Test
	void theMetricsNeedAManagementScopeNotAnMcpCallersToken() {
		String caller = AUTH.token(AUDIENCE, "alice", "mcp mcp:admin", Map.of());
		String prometheus = AUTH.token(AUDIENCE, "prometheus", "relay:metrics", Map.of());
		java.util.function.Function<String, HttpRequest.Builder> scrape = path -> HttpRequest
			.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(10));

		HttpResponse<String> refused = send(scrape.apply("/actuator/prometheus"), caller);
		assertThat(refused.statusCode()).isEqualTo(403);
		assertThat(reason(refused)).isEqualTo("management_not_allowed");
		assertThat(refused.headers().firstValue("WWW-Authenticate").orElseThrow()).contains("scope=\"relay:metrics\"");
		assertThat(send(scrape.apply("/actuator/prometheus"), prometheus).statusCode()).isEqualTo(200);
		assertThat(send(post("sdk-json", RawHttp.toolsCall(1, "echo")), prometheus).statusCode())
			.as("a management token without the required scope opens no server").isEqualTo(403);
	}

	@Test
	void aKeySourceThatIsDownIsAnswered503() {
		RSAKey rotated = TestAuthorizationServer.newKey();
		String token = TestAuthorizationServer.sign(rotated, valid().build());
		AUTH.down(true);
		try {
			long start = System.nanoTime();
			HttpResponse<String> unavailable = send(post("sdk-json", RawHttp.toolsCall(1, "echo")), token);
			assertThat(unavailable.statusCode()).as(unavailable.body()).isEqualTo(503);
			assertThat(reason(unavailable)).isEqualTo("authentication_unavailable");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
		}
		finally {
			AUTH.down(false);
		}
		AUTH.publish(rotated);
		assertThat(send(post("sdk-json", RawHttp.toolsCall(2, "echo")), token).statusCode())
			.as("once the keys are back, the rotated key is fetched and accepted").isEqualTo(200);
	}

	/** The token a connection presented a moment before serves only the very same token ({@link ConnectionCredential}). */
	@Test
	void callersTakingTurnsOnOneKeptAliveConnectionAreEachAnsweredForTheirOwnToken() {
		String alice = AUTH.token(AUDIENCE, "alice", "mcp", Map.of("tenant", "acme"));
		String bob = AUTH.token(AUDIENCE, "bob", "mcp", Map.of("tenant", "globex"));
		String forged = TestAuthorizationServer.sign(TestAuthorizationServer.newKey(),
				new JWTClaimsSet.Builder().issuer(AUTH.issuer()).audience(AUDIENCE).subject("alice")
					.claim("scope", "mcp").claim("tenant", "acme")
					.expirationTime(Date.from(Instant.now().plusSeconds(300))).build());
		String noScope = AUTH.token(AUDIENCE, "carol", "profile", Map.of("tenant", "initech"));

		try (RawSocketHttp.Connection connection = RawSocketHttp.open(port)) {
			assertThat(tenantOf(connection.exchange(rawWhoami(alice)))).isEqualTo("acme");
			assertThat(tenantOf(connection.exchange(rawWhoami(alice)))).as("the same credential again").isEqualTo("acme");
			RawSocketHttp.Response refused = connection.exchange(rawWhoami(forged));
			assertThat(refused.status()).as("a forged token after a good one").isEqualTo(401);
			assertThat(tenantOf(connection.exchange(rawWhoami(bob)))).as("another caller").isEqualTo("globex");
			assertThat(connection.exchange(rawWhoami(noScope)).status()).as("a caller without the scope").isEqualTo(403);
			assertThat(tenantOf(connection.exchange(rawWhoami(alice)))).as("the first caller again").isEqualTo("acme");
			assertThat(connection.exchange(rawWhoami(null)).status()).as("no credential at all").isEqualTo(401);
		}
	}

	private String refusal(JWTClaimsSet claims, RSAKey key) {
		HttpResponse<String> response = send(post("sdk-json", RawHttp.toolsCall(1, "echo")),
				TestAuthorizationServer.sign(key, claims));
		assertThat(response.statusCode()).as(response.body()).isEqualTo(401);
		assertThat(response.body()).doesNotContain("sdk-json");
		return reason(response);
	}

	private static JWTClaimsSet.Builder valid() {
		Instant now = Instant.now();
		return claims(now.minusSeconds(5), now.plusSeconds(300)).issuer(AUTH.issuer());
	}

	private static JWTClaimsSet.Builder claims(Instant notBefore, Instant expires) {
		return new JWTClaimsSet.Builder().audience(List.of(AUDIENCE))
			.subject("alice")
			.claim("scope", "mcp")
			.issueTime(Date.from(notBefore))
			.notBeforeTime(Date.from(notBefore))
			.expirationTime(Date.from(expires));
	}

	private HttpRequest.Builder post(String server, String body) {
		return new RawHttp(port).post(server, body);
	}

	private HttpResponse<String> send(HttpRequest.Builder request, String token) {
		return new RawHttp(port).send(request.header("Authorization", "Bearer " + token));
	}


	private String rawWhoami(String token) {
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
