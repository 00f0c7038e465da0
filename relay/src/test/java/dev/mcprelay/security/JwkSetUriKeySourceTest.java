package dev.mcprelay.security;

import org.junit.jupiter.api.AfterAll;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.TestAuthorizationServer;

/** {@link JwtKeySourceFailures} with {@code jwk-set-uri} and an {@code issuer} that is not the key server's address. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class JwkSetUriKeySourceTest extends JwtKeySourceFailures {

	static final TestAuthorizationServer AUTH = new TestAuthorizationServer();

	static final String ISSUER = "https://login.example.com/tenant-7";

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		servers(registry);
		registry.add("mcp-relay.security.jwt.jwk-set-uri", () -> AUTH.issuer() + "/jwks");
		registry.add("mcp-relay.security.jwt.issuer", () -> ISSUER);
	}

	@AfterAll
	static void stop() {
		AUTH.close();
	}

	@Override
	TestAuthorizationServer auth() {
		return AUTH;
	}

	@Override
	String issuer() {
		return ISSUER;
	}

}
