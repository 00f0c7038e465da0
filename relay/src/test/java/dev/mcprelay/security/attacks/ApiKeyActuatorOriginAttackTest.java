package dev.mcprelay.security.attacks;

import java.util.Map;

import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link ActuatorOriginProperty} in {@code api-key} mode with a management key, the actuator under a base path of the
 * operator's ({@code management.endpoints.web.base-path: /ops/manage}).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "server.address=127.0.0.1", "management.endpoints.web.base-path=/ops/manage" })
@AutoConfigureMetrics
class ApiKeyActuatorOriginAttackTest extends ActuatorOriginProperty {

	static final String MANAGEMENT_KEY = "management-key-5c1e9a7d3b2f";

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		PathAttackProperty.servers(registry);
		registry.add("mcp-relay.security.mode", () -> "api-key");
		registry.add("mcp-relay.security.api-keys[0].client", () -> "operator");
		registry.add("mcp-relay.security.api-keys[0].key-sha256", () -> ApiKeyPathAttackTest.sha256(MANAGEMENT_KEY));
		registry.add("mcp-relay.security.api-keys[0].servers[0]", () -> "*");
		registry.add("mcp-relay.security.api-keys[0].management", () -> "true");
	}

	@Override
	String basePath() {
		return "/ops/manage";
	}

	@Override
	Map<String, String> credential() {
		return Map.of("X-Api-Key", MANAGEMENT_KEY);
	}

}
