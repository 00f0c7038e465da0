package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * The management endpoints on the relay's own port in {@code api-key} mode, as a restricted caller would try them: the
 * probes need no key; the metrics (which name every server and client and their traffic) and any other exposed
 * endpoint need a key marked {@code management: true}, and a key that opens only one server, or every server, reads
 * nothing there (403 {@code management_not_allowed}); a management key opens no MCP server. The effective
 * configuration ({@code configprops}, exposed with {@code show-values: always}) shows ids and settings but none of the
 * relay's secrets.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
		"management.endpoints.web.exposure.include=health,prometheus,configprops,env",
		"management.endpoint.configprops.show-values=always", "management.endpoint.env.show-values=always" })
@AutoConfigureMetrics
class ManagementEndpointsTest {

	static final String ONE_SERVER_KEY = "one-server-key-4c2e8a1f6b3d9e07";

	static final String EVERY_SERVER_KEY = "every-server-key-9a7c5e3b1d8f2a64";

	static final String PROMETHEUS_KEY = "prometheus-key-2b4d6f8a0c1e3a5c";

	static final String UPSTREAM_TOKEN = "upstream-token-never-shown-6e1a";

	static final String HEADER_SECRET = "header-secret-never-shown-3f9b";

	static final String SESSIONS_SECRET = "sessions-secret-never-shown-0123456789abcdef";

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "api-key");
		registry.add("mcp-relay.security.api-keys[0].client", () -> "one-server");
		registry.add("mcp-relay.security.api-keys[0].key-sha256", () -> ApiKeySecurityTest.sha256(ONE_SERVER_KEY));
		registry.add("mcp-relay.security.api-keys[0].servers[0]", () -> "sdk-json");
		registry.add("mcp-relay.security.api-keys[1].client", () -> "every-server");
		registry.add("mcp-relay.security.api-keys[1].key-sha256", () -> ApiKeySecurityTest.sha256(EVERY_SERVER_KEY));
		registry.add("mcp-relay.security.api-keys[1].servers[0]", () -> "*");
		registry.add("mcp-relay.security.api-keys[2].client", () -> "prometheus");
		registry.add("mcp-relay.security.api-keys[2].key-sha256", () -> ApiKeySecurityTest.sha256(PROMETHEUS_KEY));
		registry.add("mcp-relay.security.api-keys[2].management", () -> "true");
		registry.add("mcp-relay.servers.sdk-json.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.hidden.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.hidden.authorization", () -> "Bearer " + UPSTREAM_TOKEN);
		registry.add("mcp-relay.servers.hidden.headers[0].name", () -> "X-Upstream-Key");
		registry.add("mcp-relay.servers.hidden.headers[0].value", () -> HEADER_SECRET);
		registry.add("mcp-relay.sessions.secret", () -> SESSIONS_SECRET);
	}

	@Test
	void onlyAKeyMarkedForManagementReadsTheMetrics() {
		assertThat(get("/actuator/health/liveness", null).statusCode()).as("the probes need no key").isEqualTo(200);
		for (String key : new String[] { ONE_SERVER_KEY, EVERY_SERVER_KEY }) {
			HttpResponse<String> refused = get("/actuator/prometheus", key);
			assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
			assertThat(ApiKeySecurityTest.reason(refused)).isEqualTo("management_not_allowed");
			assertThat(refused.body()).as("the refusal names no server").doesNotContain("hidden");
		}
		HttpResponse<String> scrape = get("/actuator/prometheus", PROMETHEUS_KEY);
		assertThat(scrape.statusCode()).isEqualTo(200);
		assertThat(scrape.body()).contains("mcp_relay_");
	}

	@Test
	void aManagementKeyOpensNoMcpServer() {
		RawHttp prometheus = new RawHttp(port, "X-Api-Key", PROMETHEUS_KEY);
		HttpResponse<String> refused = prometheus.send(prometheus.post("sdk-json", RawHttp.toolsCall(1, "echo")));
		assertThat(refused.statusCode()).isEqualTo(403);
		assertThat(ApiKeySecurityTest.reason(refused)).isEqualTo("server_not_allowed");
	}

	@Test
	void theEffectiveConfigurationShowsNoSecret() {
		assertThat(get("/actuator/configprops", EVERY_SERVER_KEY).statusCode()).isEqualTo(403);
		HttpResponse<String> configuration = get("/actuator/configprops", PROMETHEUS_KEY);

		assertThat(configuration.statusCode()).isEqualTo(200);
		assertThat(configuration.body()).as("ids and settings are there").contains("\"hidden\"", "X-Upstream-Key",
				"\"prometheus\"", "nonStreaming");
		assertThat(configuration.body()).doesNotContain(UPSTREAM_TOKEN, HEADER_SECRET, SESSIONS_SECRET,
				ApiKeySecurityTest.sha256(PROMETHEUS_KEY), ApiKeySecurityTest.sha256(ONE_SERVER_KEY));
	}

	@Test
	void theEnvironmentShowsNoVariablesValue() {
		String path = System.getenv("PATH");
		HttpResponse<String> env = get("/actuator/env", PROMETHEUS_KEY);

		assertThat(env.statusCode()).isEqualTo(200);
		assertThat(env.body()).as("the variable is named").contains("\"PATH\"");
		assertThat(env.body()).as("its value, whatever it is called, is not shown").doesNotContain(path);
	}

	private HttpResponse<String> get(String path, String key) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(10));
		if (key != null) {
			request.header("X-Api-Key", key);
		}
		return new RawHttp(port).send(request);
	}

}
