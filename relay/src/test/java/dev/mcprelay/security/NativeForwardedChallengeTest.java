package dev.mcprelay.security;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link ForwardedChallenges} with {@code server.forward-headers-strategy: native}. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class NativeForwardedChallengeTest extends ForwardedChallenges {

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		relay(registry, "native");
	}

}
