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
		ConnectionCredential kept = ConnectionCredential.of("token-a", longLived, null, now);

		assertThat(kept.serves("token-a", now + 1)).isTrue();
		assertThat(kept.serves("token-b", now + 1)).as("another credential").isFalse();
		assertThat(kept.serves("token-a", now + ValidatedTokens.KEPT.toNanos())).as("after KEPT").isFalse();

		ConnectionCredential expiring = ConnectionCredential.of("token-c", token(Instant.now().plusSeconds(2)), null, now);
		assertThat(expiring.serves("token-c", now + TimeUnit.SECONDS.toNanos(1))).isTrue();
		assertThat(expiring.serves("token-c", now + TimeUnit.SECONDS.toNanos(3))).as("past its exp").isFalse();
		ConnectionCredential expired = ConnectionCredential.of("token-d", token(Instant.now().minusSeconds(1)), null, now);
		assertThat(expired.serves("token-d", now)).as("accepted within the clock skew, already past exp").isFalse();
		assertThat(ConnectionCredential.credentialOf(new BearerTokenAuthenticationToken("t"))).isEqualTo("t");
		assertThat(ConnectionCredential.credentialOf(ApiKeyAuthentication.presented("k"))).as("API keys are not kept")
			.isNull();
		assertThat(kept.toString()).doesNotContain("token-a");
	}

	@Test
	void aCredentialTakenFromTheCacheKeepsTheCachesDeadlineNotANewWindow() {
		// Accepted (and cached) now; seen on a kept connection 27 s later: it must be checked again at +30 s, not +57 s.
		TokenAuthentication accepted = new TokenAuthentication(token(Instant.now().plusSeconds(3600)));
		long acceptedAt = System.nanoTime();
		ConnectionCredential kept = ConnectionCredential.of("token-a", accepted, null,
				acceptedAt + TimeUnit.SECONDS.toNanos(27));

		assertThat(kept.keptUntilNanos()).as("the deadline the token was accepted with")
			.isEqualTo(accepted.keptUntilNanos());
		assertThat(kept.serves("token-a", acceptedAt + TimeUnit.SECONDS.toNanos(29))).isTrue();
		assertThat(kept.serves("token-a", acceptedAt + TimeUnit.SECONDS.toNanos(31)))
			.as("30 s after the token was checked, wherever it was kept since").isFalse();
		assertThat(kept.keptForNanos(acceptedAt + TimeUnit.SECONDS.toNanos(31))).isZero();
	}

	@Test
	void tokensAreComparedWholeWhateverTheirLengths() {
		assertThat(ConnectionCredential.sameInConstantTime("abc", "abc")).isTrue();
		assertThat(ConnectionCredential.sameInConstantTime("abc", "abd")).isFalse();
		assertThat(ConnectionCredential.sameInConstantTime("abc", "ab")).as("a prefix").isFalse();
		assertThat(ConnectionCredential.sameInConstantTime("ab", "abc")).as("longer").isFalse();
		assertThat(ConnectionCredential.sameInConstantTime("ab\0", "ab")).as("NUL padding is no match").isFalse();
		assertThat(ConnectionCredential.sameInConstantTime("", "")).isTrue();
	}

	private static JwtAuthenticationToken token(Instant expiry) {
		Jwt jwt = Jwt.withTokenValue("t").header("alg", "RS256").subject("alice").expiresAt(expiry)
			.issuedAt(expiry.minusSeconds(7200)).build();
		return new JwtAuthenticationToken(jwt, List.of(), "alice");
	}

}
