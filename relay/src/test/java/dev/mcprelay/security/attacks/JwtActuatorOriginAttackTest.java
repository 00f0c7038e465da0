package dev.mcprelay.security.attacks;

import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.TestAuthorizationServer;

/** {@link ActuatorOriginProperty} in {@code jwt} mode, with a real token carrying a management scope. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "server.address=127.0.0.1")
@AutoConfigureMetrics
class JwtActuatorOriginAttackTest extends ActuatorOriginProperty {

	static final TestAuthorizationServer AUTH = new TestAuthorizationServer();

	static final String AUDIENCE = "mcp-relay-actuator-attacks";

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		PathAttackProperty.servers(registry);
		registry.add("mcp-relay.security.mode", () -> "jwt");
		registry.add("mcp-relay.security.jwt.issuer-uri", AUTH::issuer);
		registry.add("mcp-relay.security.jwt.audience", () -> AUDIENCE);
		registry.add("mcp-relay.security.jwt.management-scopes[0]", () -> "relay.manage");
	}

	@AfterAll
	static void stop() {
		AUTH.close();
	}

	@Override
	Map<String, String> credential() {
		return Map.of("Authorization", "Bearer " + AUTH.token(AUDIENCE, "operator", "relay.manage", Map.of()));
	}

}
