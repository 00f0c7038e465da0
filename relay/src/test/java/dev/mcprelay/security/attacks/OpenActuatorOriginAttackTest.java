package dev.mcprelay.security.attacks;

import java.util.Map;

import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link ActuatorOriginProperty} in mode {@code none}, where nothing else stands between a page and the actuator (a
 * {@code POST /actuator/reload} among its paths).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "server.address=127.0.0.1")
@AutoConfigureMetrics
class OpenActuatorOriginAttackTest extends ActuatorOriginProperty {

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		PathAttackProperty.servers(registry);
		registry.add("mcp-relay.security.mode", () -> "none");
	}

	@Override
	Map<String, String> credential() {
		return Map.of();
	}

}
