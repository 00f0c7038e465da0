package dev.mcprelay.security.attacks;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.TestAuthorizationServer;

/**
 * {@link PathAttackProperty} in {@code jwt} mode, with real tokens from a real JWK Set: {@code acme} needs scope
 * {@code acme}, {@code other} scope {@code other}; a token with scope {@code acme} only, and one with both.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class JwtPathAttackTest extends PathAttackProperty {

	static final TestAuthorizationServer AUTH = new TestAuthorizationServer();

	static final String AUDIENCE = "mcp-relay-attacks";

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		servers(registry);
		registry.add("mcp-relay.security.mode", () -> "jwt");
		registry.add("mcp-relay.security.jwt.issuer-uri", AUTH::issuer);
		registry.add("mcp-relay.security.jwt.audience", () -> AUDIENCE);
		registry.add("mcp-relay.servers.acme.allowed-scopes[0]", () -> "acme");
		registry.add("mcp-relay.servers.other.allowed-scopes[0]", () -> "other");
	}

	@AfterAll
	static void stop() {
		AUTH.close();
	}

	@Override
	List<AttackingCaller> callers() {
		return List.of(
				new AttackingCaller("acme-scoped token",
						Map.of("Authorization", "Bearer " + AUTH.token(AUDIENCE, "alice", "acme", Map.of())), Set.of("acme")),
				new AttackingCaller("token for both",
						Map.of("Authorization", "Bearer " + AUTH.token(AUDIENCE, "bob", "acme other", Map.of())),
						Set.of("acme", "other")));
	}

}
