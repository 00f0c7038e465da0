package dev.mcprelay.security;

import org.junit.jupiter.api.AfterAll;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.TestAuthorizationServer;

/** {@link JwtKeySourceFailures} with {@code issuer-uri}: the keys named by the issuer's metadata. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class IssuerUriKeySourceTest extends JwtKeySourceFailures {

	static final TestAuthorizationServer AUTH = new TestAuthorizationServer();

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		servers(registry);
		registry.add("mcp-relay.security.jwt.issuer-uri", AUTH::issuer);
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
		return AUTH.issuer();
	}

}
