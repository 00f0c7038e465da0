package dev.mcprelay.security.attacks;

import java.util.Map;

import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link ActuatorOriginProperty} on a management port of its own ({@code management.server.port}, as the Kubernetes
 * manifests set it), where the actuator needs no credential, in mode {@code api-key}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "server.address=127.0.0.1", "management.server.port=0", "management.server.address=127.0.0.1" })
@AutoConfigureMetrics
class ManagementPortActuatorOriginAttackTest extends ActuatorOriginProperty {

	@LocalManagementPort
	int managementPort;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		PathAttackProperty.servers(registry);
		registry.add("mcp-relay.security.mode", () -> "api-key");
		registry.add("mcp-relay.security.api-keys[0].client", () -> "caller");
		registry.add("mcp-relay.security.api-keys[0].key-sha256", () -> ApiKeyPathAttackTest.sha256("caller-key-0b7e2d4f6a81"));
		registry.add("mcp-relay.security.api-keys[0].servers[0]", () -> "*");
	}

	@Override
	int actuatorPort() {
		return managementPort;
	}

	@Override
	Map<String, String> credential() {
		return Map.of();
	}

}
