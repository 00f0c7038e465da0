package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

/**
 * The token a connection presented a moment before serves only a request on that connection presenting exactly the
 * same one, within {@link ValidatedTokens#KEPT} and never past the token's {@code exp}; API keys are not kept. (Callers
 * taking turns on one connection: {@code JwtSecurityTest}.)
 */
class ConnectionCredentialTest {

	@Test
	void aKeptCredentialServesOnlyTheSameCredentialWithinItsLimits() {
		long now = System.nanoTime();
		JwtAuthenticationToken longLived = token(Instant.now().plusSeconds(3600));
		ConnectionCredential kept = ConnectionCredential.of("token-a", longLived, now);

		assertThat(kept.serves("token-a", now + 1)).isTrue();
		assertThat(kept.serves("token-b", now + 1)).as("another credential").isFalse();
		assertThat(kept.serves("token-a", now + ValidatedTokens.KEPT.toNanos())).as("after KEPT").isFalse();

		ConnectionCredential expiring = ConnectionCredential.of("token-c", token(Instant.now().plusSeconds(2)), now);
		assertThat(expiring.serves("token-c", now + TimeUnit.SECONDS.toNanos(1))).isTrue();
		assertThat(expiring.serves("token-c", now + TimeUnit.SECONDS.toNanos(3))).as("past its exp").isFalse();
		ConnectionCredential expired = ConnectionCredential.of("token-d", token(Instant.now().minusSeconds(1)), now);
		assertThat(expired.serves("token-d", now)).as("accepted within the clock skew, already past exp").isFalse();
		assertThat(ConnectionCredential.credentialOf(new BearerTokenAuthenticationToken("t"))).isEqualTo("t");
		assertThat(ConnectionCredential.credentialOf(ApiKeyAuthentication.presented("k"))).as("API keys are not kept")
			.isNull();
		assertThat(kept.toString()).doesNotContain("token-a");
	}

	private static JwtAuthenticationToken token(Instant expiry) {
		Jwt jwt = Jwt.withTokenValue("t").header("alg", "RS256").subject("alice").expiresAt(expiry)
			.issuedAt(expiry.minusSeconds(7200)).build();
		return new JwtAuthenticationToken(jwt, List.of(), "alice");
	}

}
