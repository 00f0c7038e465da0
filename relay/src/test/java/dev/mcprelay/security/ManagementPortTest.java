package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * The management endpoints on a port of their own ({@code management.server.port}, as the Kubernetes manifests set
 * it): there they need no credential (only the cluster reaches that port), and the relay's own port, which clients
 * reach, serves none of them, whatever key a caller holds; a client's forwarded headers naming the management port
 * change nothing.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.server.port=0", "management.server.address=127.0.0.1",
				"server.forward-headers-strategy=native" })
@AutoConfigureMetrics
class ManagementPortTest {

	static final String KEY = "mcp-key-8d3f1b6a2c9e4f70";

	@LocalServerPort
	int port;

	@LocalManagementPort
	int managementPort;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "api-key");
		registry.add("mcp-relay.security.api-keys[0].client", () -> "everything");
		registry.add("mcp-relay.security.api-keys[0].key-sha256", () -> ApiKeySecurityTest.sha256(KEY));
		registry.add("mcp-relay.security.api-keys[0].servers[0]", () -> "*");
		registry.add("mcp-relay.security.api-keys[0].management", () -> "true");
		registry.add("mcp-relay.servers.sdk-json.url", () -> TestUpstreams.SDK.url("/stateless"));
	}

	@Test
	void theManagementPortNeedsNoCredentialAndTheRelaysPortServesNoManagementEndpoint() {
		assertThat(managementPort).isNotEqualTo(port);
		HttpResponse<String> scrape = get(managementPort, "/actuator/prometheus", null);
		assertThat(scrape.statusCode()).isEqualTo(200);
		assertThat(scrape.body()).contains("mcp_relay_");
		assertThat(get(managementPort, "/actuator/health/readiness", null).statusCode()).isEqualTo(200);

		assertThat(get(port, "/actuator/prometheus", null).statusCode()).isIn(401, 404);
		assertThat(get(port, "/actuator/prometheus", KEY).statusCode()).as("not even with a management key")
			.isEqualTo(404);
		HttpResponse<String> forged = new RawHttp(port).send(HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/anything"))
			.header("X-Forwarded-Port", String.valueOf(managementPort))
			.header("X-Forwarded-Host", "127.0.0.1:" + managementPort)
			.timeout(Duration.ofSeconds(10)));
		assertThat(forged.statusCode()).as("forwarded headers do not make the relay's port the management port")
			.isEqualTo(401);
		RawHttp mcp = new RawHttp(port, "X-Api-Key", KEY);
		assertThat(mcp.send(mcp.post("sdk-json", RawHttp.toolsCall(1, "echo"))).statusCode()).as("MCP as ever")
			.isEqualTo(200);
	}

	private HttpResponse<String> get(int port, String path, String key) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(10));
		if (key != null) {
			request.header("X-Api-Key", key);
		}
		return new RawHttp(port).send(request);
	}

}
