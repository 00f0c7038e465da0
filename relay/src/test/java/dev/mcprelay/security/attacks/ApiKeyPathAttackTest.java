package dev.mcprelay.security.attacks;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link PathAttackProperty} in {@code api-key} mode: a key that opens {@code acme} only, and a key for every server. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ApiKeyPathAttackTest extends PathAttackProperty {

	static final String ACME_KEY = "acme-only-key-4e1d7c2a9b3f";

	static final String STAR_KEY = "every-server-key-8a2c6e0f1d5b";

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		servers(registry);
		registry.add("mcp-relay.security.mode", () -> "api-key");
		registry.add("mcp-relay.security.api-keys[0].client", () -> "acme-only");
		registry.add("mcp-relay.security.api-keys[0].key-sha256", () -> sha256(ACME_KEY));
		registry.add("mcp-relay.security.api-keys[0].servers[0]", () -> "acme");
		registry.add("mcp-relay.security.api-keys[1].client", () -> "everything");
		registry.add("mcp-relay.security.api-keys[1].key-sha256", () -> sha256(STAR_KEY));
		registry.add("mcp-relay.security.api-keys[1].servers[0]", () -> "*");
	}

	static String sha256(String key) {
		try {
			return java.util.HexFormat.of()
				.formatHex(java.security.MessageDigest.getInstance("SHA-256")
					.digest(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
		}
		catch (java.security.NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	List<AttackingCaller> callers() {
		return List.of(new AttackingCaller("acme-only key", Map.of("X-Api-Key", ACME_KEY), Set.of("acme")),
				new AttackingCaller("acme-only bearer key", Map.of("Authorization", "Bearer " + ACME_KEY), Set.of("acme")),
				new AttackingCaller("every-server key", Map.of("X-Api-Key", STAR_KEY), Set.of("acme", "other")));
	}

}
