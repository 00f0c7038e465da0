package dev.mcprelay.security;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link ForwardedChallenges} with {@code server.forward-headers-strategy: framework}. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class FrameworkForwardedChallengeTest extends ForwardedChallenges {

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		relay(registry, "framework");
	}

}
