package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.WebFluxExchanges;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;

/**
 * {@code security.mode: api-key} in front of a real MCP server (the SDK's) and a scripted one that records what
 * reaches it: every refusal is a JSON-RPC error that names no server, reaches no upstream and is counted; a good key
 * reaches the servers it opens and only those, and its client id flows to the access log, the metrics and the
 * upstream's headers, while the key itself never leaves the relay.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureMetrics
@Import(WebFluxExchanges.class)
class ApiKeySecurityTest {

	static final String CI_KEY = "ci-key-5b1f0c8e2d7a4f6b9c3e1a0d";

	static final String ADMIN_KEY = "admin-key-77e2c41a9b0d4e3f8a6c";

	static final ScriptedUpstream RECORDING = new ScriptedUpstream();

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "api-key");
		registry.add("mcp-relay.security.api-keys[0].client", () -> "ci-bot");
		registry.add("mcp-relay.security.api-keys[0].key-sha256", () -> sha256(CI_KEY));
		registry.add("mcp-relay.security.api-keys[0].servers[0]", () -> "sdk-json");
		registry.add("mcp-relay.security.api-keys[0].servers[1]", () -> "recording");
		registry.add("mcp-relay.security.api-keys[1].client", () -> "admin");
		registry.add("mcp-relay.security.api-keys[1].key-sha256", () -> sha256(ADMIN_KEY).toUpperCase());
		registry.add("mcp-relay.security.api-keys[1].servers[0]", () -> "*");
		registry.add("mcp-relay.servers.sdk-json.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.other.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.recording.url", () -> RECORDING.url("/mcp"));
		registry.add("mcp-relay.servers.recording.headers[0].name", () -> "X-Caller");
		registry.add("mcp-relay.servers.recording.headers[0].from-caller-claim", () -> "client_id");
	}

	@AfterAll
	static void stop() {
		RECORDING.close();
	}

	@BeforeEach
	void answerEverything() {
		RECORDING.clear();
		RECORDING.script((request, response) -> response.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")));
	}

	@Test
	void withoutCredentialsNothingIsServedAndNothingIsLearned() {
		HttpResponse<String> known = send(post("recording"));
		HttpResponse<String> unknown = send(post("no-such-server"));

		assertThat(known.statusCode()).isEqualTo(401);
		assertThat(reason(known)).isEqualTo("missing_credentials");
		assertThat(known.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"mcp-relay\"");
		assertThat(RawHttp.json(known.body()).path("id").isNull()).isTrue();
		assertThat(known.body()).doesNotContain("recording");
		assertThat(unknown.statusCode()).isEqualTo(401);
		assertThat(unknown.body()).as("an unknown server looks exactly like a known one").isEqualTo(known.body());
		assertThat(RECORDING.seen()).as("nothing reached the upstream").isEmpty();
	}

	@Test
	void malformedAndUnknownCredentialsAreRefusedWithTheirReason() {
		assertThat(reason(send(post("recording").header("Authorization", "Basic " + CI_KEY))))
			.isEqualTo("malformed_credentials");
		assertThat(reason(send(post("recording").header("Authorization", "Bearer ")))).isEqualTo("malformed_credentials");
		assertThat(reason(send(post("recording").header("X-Api-Key", "two words")))).isEqualTo("malformed_credentials");
		HttpResponse<String> unknown = send(post("recording").header("Authorization", "Bearer not-a-configured-key"));
		assertThat(unknown.statusCode()).isEqualTo(401);
		assertThat(reason(unknown)).isEqualTo("invalid_api_key");
		assertThat(unknown.body()).doesNotContain("not-a-configured-key");
		HttpResponse<String> truncated = send(post("recording").header("X-Api-Key", CI_KEY.substring(0, 10)));
		assertThat(reason(truncated)).isEqualTo("invalid_api_key");
		assertThat(RECORDING.seen()).isEmpty();
	}

	@Test
	void aKeyOpensItsServersOnly() {
		HttpResponse<String> other = send(post("other").header("Authorization", "Bearer " + CI_KEY));
		HttpResponse<String> unknown = send(post("no-such-server").header("Authorization", "Bearer " + CI_KEY));

		assertThat(other.statusCode()).isEqualTo(403);
		assertThat(reason(other)).isEqualTo("server_not_allowed");
		await(() -> CapturedLogs.all().stream()
			.anyMatch(line -> line.contains("server=other client=ci-bot") && line.contains("reason=server_not_allowed")));
		assertThat(unknown.statusCode()).isEqualTo(403);
		assertThat(reason(unknown)).isEqualTo("server_not_allowed");
		HttpResponse<String> admin = send(post("no-such-server").header("X-Api-Key", ADMIN_KEY));
		assertThat(admin.statusCode()).as("a key for every server may learn which exist").isEqualTo(404);
	}

	@Test
	void aGoodKeyReachesTheServerWithItsClientAndWithoutItself() {
		HttpResponse<String> bearer = send(new RawHttp(port).post("sdk-json", McpSession.initialize(1))
			.header("Authorization", "Bearer " + CI_KEY));
		HttpResponse<String> header = send(new RawHttp(port).post("sdk-json", RawHttp.toolsCall(2, "echo"))
			.header("X-Api-Key", CI_KEY));
		send(post("recording").header("Authorization", "Bearer " + CI_KEY));
		ScriptedUpstream.Seen seenBearer = RECORDING.lastSeen();
		send(post("recording").header("X-Api-Key", CI_KEY));
		ScriptedUpstream.Seen seenKey = RECORDING.lastSeen();

		assertThat(bearer.statusCode()).as(bearer.body()).isEqualTo(200);
		assertThat(RawHttp.json(bearer.body()).at("/result/serverInfo/name").asText()).isNotBlank();
		assertThat(header.statusCode()).as(header.body()).isEqualTo(200);
		for (ScriptedUpstream.Seen seen : java.util.List.of(seenBearer, seenKey)) {
			assertThat(seen.headers().getFirst("X-Caller")).isEqualTo("ci-bot");
			assertThat(seen.headers().containsHeader("Authorization")).isFalse();
			assertThat(seen.headers().containsHeader("X-Api-Key")).as("the relay's credential never crosses").isFalse();
			assertThat(seen.headers().toString()).doesNotContain(CI_KEY);
		}
		await(() -> CapturedLogs.all().stream().anyMatch(line -> line.contains("server=recording client=ci-bot")));
		await(() -> registry.find(RelayMeters.REQUESTS).tags("server", "sdk-json", "client", "ci-bot").counter() != null);
		assertThat(CapturedLogs.all()).noneMatch(line -> line.contains(CI_KEY) || line.contains(ADMIN_KEY));
	}

	@Test
	void moreThanOneCredentialIsRefusedWhateverTheOrderAndWhicheverIsGood() {
		double before = failures("ambiguous_credentials", "recording");

		HttpResponse<String> goodKeyBadBearer = send(post("recording").header("X-Api-Key", CI_KEY)
			.header("Authorization", "Bearer not-a-configured-key"));
		HttpResponse<String> badKeyGoodBearer = send(post("recording").header("X-Api-Key", "not-a-configured-key")
			.header("Authorization", "Bearer " + CI_KEY));
		HttpResponse<String> bothGood = send(post("recording").header("X-Api-Key", CI_KEY)
			.header("Authorization", "Bearer " + CI_KEY));
		HttpResponse<String> twoKeys = send(post("recording").header("X-Api-Key", CI_KEY).header("X-Api-Key", ADMIN_KEY));

		for (HttpResponse<String> refused : java.util.List.of(goodKeyBadBearer, badKeyGoodBearer, bothGood, twoKeys)) {
			assertThat(refused.statusCode()).as(refused.body()).isEqualTo(401);
			assertThat(reason(refused)).isEqualTo("ambiguous_credentials");
			assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(
					challenge -> assertThat(challenge).startsWith("Bearer").contains("error=\"invalid_request\""));
			assertThat(refused.body()).doesNotContain(CI_KEY).doesNotContain(ADMIN_KEY);
		}
		assertThat(RECORDING.seen()).as("nothing reached the upstream").isEmpty();
		assertThat(failures("ambiguous_credentials", "recording") - before).as("each refusal is counted").isEqualTo(4);
	}

	@Test
	void aThousandBadKeysAreCountedAndGoodCallersAreStillServed() {
		double before = failures("invalid_api_key", "sdk-json");
		for (int i = 0; i < 1000; i++) {
			HttpResponse<String> bad = send(new RawHttp(port).post("sdk-json", RawHttp.toolsCall(i, "echo"))
				.header("X-Api-Key", "guess-" + i));
			assertThat(bad.statusCode()).isEqualTo(401);
			if (i % 250 == 0) {
				HttpResponse<String> good = send(new RawHttp(port).post("sdk-json", RawHttp.toolsCall(i, "echo"))
					.header("X-Api-Key", CI_KEY));
				assertThat(good.statusCode()).isEqualTo(200);
			}
		}
		assertThat(failures("invalid_api_key", "sdk-json") - before).isEqualTo(1000);
	}

	@Test
	void theMcpPathsAreServedOnReactorNettysRouteAndEveryOtherPathBehindSpringSecurity() {
		WebFluxExchanges.PATHS.clear();

		HttpResponse<String> served = send(post("recording").header("X-Api-Key", CI_KEY));
		HttpResponse<String> unauthenticated = send(post("recording"));
		HttpResponse<String> forbidden = send(post("other").header("X-Api-Key", CI_KEY));
		HttpResponse<String> scrape = send(get("/actuator/prometheus"));

		assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
		assertThat(unauthenticated.statusCode()).isEqualTo(401);
		assertThat(forbidden.statusCode()).isEqualTo(403);
		assertThat(scrape.statusCode()).isEqualTo(401);
		assertThat(WebFluxExchanges.PATHS).as("only the actuator became a WebFlux exchange")
			.containsExactly("/actuator/prometheus");
	}

	@Test
	void probesAreOpenAndMetricsNeedAKeyMarkedForThem() {
		assertThat(send(get("/actuator/health/readiness")).statusCode()).isEqualTo(200);
		HttpResponse<String> scrape = send(get("/actuator/prometheus"));
		assertThat(scrape.statusCode()).isEqualTo(401);
		assertThat(reason(scrape)).isEqualTo("missing_credentials");
		HttpResponse<String> mcpKey = send(get("/actuator/prometheus").header("X-Api-Key", CI_KEY));
		assertThat(mcpKey.statusCode()).as("an MCP caller's key reads nothing there").isEqualTo(403);
		assertThat(reason(mcpKey)).isEqualTo("management_not_allowed");
		assertThat(send(get("/actuator/prometheus").header("X-Api-Key", ADMIN_KEY)).statusCode())
			.as("nor does a key that opens every server").isEqualTo(403);
		assertThat(send(get("/.well-known/oauth-protected-resource/mcp/sdk-json")).statusCode())
			.as("no OAuth metadata in api-key mode").isNotEqualTo(200);
	}

	private HttpRequest.Builder post(String server) {
		return new RawHttp(port).post(server, RawHttp.toolsCall(1, "echo"));
	}

	private HttpRequest.Builder get(String path) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(20));
	}

	private HttpResponse<String> send(HttpRequest.Builder request) {
		return new RawHttp(port).send(request);
	}

	private double failures(String reason, String server) {
		Counter counter = registry.find(RelayMeters.AUTH_FAILURES).tags("reason", reason, "server", server).counter();
		return counter == null ? 0 : counter.count();
	}

	static String reason(HttpResponse<String> response) {
		JsonNode body = RawHttp.json(response.body());
		return body.at("/error/data/reason").asText();
	}

	/** The configured form of a key, computed apart from the relay's own code. */
	static String sha256(String key) {
		try {
			return HexFormat.of()
				.formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
		}
		catch (java.security.NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void await(java.util.concurrent.Callable<Boolean> condition) {
		org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(condition);
	}

}
