package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.TestAuthorizationServer;

/**
 * The official TypeScript SDK client through a secured relay in front of the reference server: with an API key (as
 * {@code Authorization: Bearer} and as {@code X-Api-Key}) and with a JWT from a real JWK Set it connects, lists and
 * calls tools; without credentials, or with a wrong key, it is refused with 401 before anything reaches the server.
 */
class FrontDoorInteropTest {

	static final String KEY = "interop-key-3f9a1c7e5b2d4a6c8e0f";

	static final ObjectMapper JSON = new ObjectMapper();

	static NodePeers.NodeServer server;

	static TestAuthorizationServer auth;

	static ConfigurableApplicationContext apiKeyRelay;

	static ConfigurableApplicationContext jwtRelay;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		server = NodePeers.startReferenceServer();
		auth = new TestAuthorizationServer();
		apiKeyRelay = relay("--mcp-relay.security.mode=api-key", "--mcp-relay.security.api-keys[0].client=interop",
				"--mcp-relay.security.api-keys[0].key-sha256=" + java.util.HexFormat.of().formatHex(
						java.security.MessageDigest.getInstance("SHA-256").digest(KEY.getBytes())),
				"--mcp-relay.security.api-keys[0].servers[0]=everything");
		jwtRelay = relay("--mcp-relay.security.mode=jwt", "--mcp-relay.security.jwt.issuer-uri=" + auth.issuer(),
				"--mcp-relay.security.jwt.audience=interop");
	}

	@AfterAll
	static void stop() throws Exception {
		for (AutoCloseable closeable : new AutoCloseable[] { apiKeyRelay, jwtRelay, auth, server }) {
			if (closeable != null) {
				closeable.close();
			}
		}
	}

	@Test
	void theTypeScriptClientConnectsWithAKeyAndIsRefusedWithout() throws Exception {
		String endpoint = endpoint(apiKeyRelay);

		JsonNode bearer = run(endpoint, "Authorization: Bearer " + KEY);
		JsonNode header = run(endpoint, "X-Api-Key: " + KEY);
		JsonNode none = run(endpoint, null);
		JsonNode wrong = run(endpoint, "X-Api-Key: not-the-key");

		assertThat(bearer.path("connected").asBoolean()).as(bearer.toString()).isTrue();
		assertThat(bearer.path("tools").asInt()).isPositive();
		assertThat(bearer.path("echo").asText()).contains("through the front door");
		assertThat(header.path("connected").asBoolean()).as(header.toString()).isTrue();
		assertThat(none.path("connected").asBoolean()).isFalse();
		assertThat(none.path("status").asInt()).as(none.toString()).isEqualTo(401);
		assertThat(wrong.path("status").asInt()).as(wrong.toString()).isEqualTo(401);
	}

	@Test
	void theTypeScriptClientConnectsWithAToken() throws Exception {
		String endpoint = endpoint(jwtRelay);
		String token = auth.token("interop", "sdk-client", "mcp", Map.of());

		JsonNode withToken = run(endpoint, "Authorization: Bearer " + token);
		JsonNode wrongAudience = run(endpoint, "Authorization: Bearer " + auth.token("elsewhere", "x", "mcp", Map.of()));

		assertThat(withToken.path("connected").asBoolean()).as(withToken.toString()).isTrue();
		assertThat(withToken.path("echo").asText()).contains("through the front door");
		assertThat(wrongAudience.path("connected").asBoolean()).isFalse();
		assertThat(wrongAudience.path("status").asInt()).as(wrongAudience.toString()).isEqualTo(401);
	}

	private static JsonNode run(String endpoint, String header) throws Exception {
		String output = header == null ? NodePeers.runClient("authenticated-client.mjs", endpoint)
				: NodePeers.runClient("authenticated-client.mjs", endpoint, header);
		return JSON.readTree(output);
	}

	private static String endpoint(ConfigurableApplicationContext relay) {
		return "http://127.0.0.1:" + ((WebServerApplicationContext) relay).getWebServer().getPort() + "/mcp/everything";
	}

	private static ConfigurableApplicationContext relay(String... security) {
		String[] args = java.util.stream.Stream
			.concat(java.util.stream.Stream.of("--server.port=0", "--server.address=127.0.0.1",
					"--mcp-relay.servers.everything.url=" + server.url()), java.util.stream.Stream.of(security))
			.toArray(String[]::new);
		return new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class).run(args);
	}

}
