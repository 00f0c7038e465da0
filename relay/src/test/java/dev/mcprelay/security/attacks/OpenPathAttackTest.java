package dev.mcprelay.security.attacks;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link PathAttackProperty} in mode {@code none}: anyone may use every server, so what it proves is that a request
 * reaches exactly the server its path canonically names, and that every other form reaches none.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OpenPathAttackTest extends PathAttackProperty {

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		servers(registry);
		registry.add("mcp-relay.security.mode", () -> "none");
	}

	@Override
	List<AttackingCaller> callers() {
		return List.of(new AttackingCaller("anyone", Map.of(), Set.of("acme", "other")));
	}

}
