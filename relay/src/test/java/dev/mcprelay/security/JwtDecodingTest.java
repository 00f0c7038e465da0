package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.JwtValidationException;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;

/**
 * The claim that names the caller ({@code client-claim}, here {@code email} as where machine tokens lack it) must be
 * text that is not blank; anything else names no caller and is refused, with the description the front door reads as
 * {@code missing_client_claim}.
 */
class JwtDecodingTest {

	private final OAuth2TokenValidator<Jwt> namesCaller = JwtDecoding.namesCaller("email");

	@Test
	void onlyTextThatIsNotBlankNamesACaller() {
		assertThat(namesCaller.validate(jwt(Map.of("email", "bot@example.com"))).hasErrors()).isFalse();
		for (Map<String, Object> claims : List.<Map<String, Object>>of(Map.of(), Map.of("email", ""),
				Map.of("email", " \t"), Map.of("email", 42), Map.of("email", List.of("a@example.com")),
				Map.of("email", Map.of("value", "a@example.com")), Map.of("sub", "alice"))) {
			var result = namesCaller.validate(jwt(claims));
			assertThat(result.hasErrors()).as(claims.toString()).isTrue();
			assertThat(FrontDoorAnswers.TokenRejections.reasonFor(result.getErrors().iterator().next().getDescription()))
				.isEqualTo("missing_client_claim");
		}
	}

	/**
	 * Review 44p P-M3: a token refused only because its {@code exp} is past is told apart from one refused for anything
	 * else (a merged GET's token that expired since is judged as it was accepted, not as revoked). Pins the description
	 * of Spring Security's timestamp validator, which it reads.
	 */
	@Test
	void aRefusalOnlyForExpiryIsToldApart() {
		Jwt expired = Jwt.withTokenValue("t").header("alg", "RS256").issuedAt(Instant.now().minusSeconds(600))
			.expiresAt(Instant.now().minusSeconds(120)).claim("email", "bot@example.com").build();
		List<OAuth2Error> expiry = new ArrayList<>(new JwtTimestampValidator().validate(expired).getErrors());
		assertThat(expiry).hasSize(1);
		assertThat(JwtDecoding.merelyExpired(new InvalidBearerTokenException("refused",
				new JwtValidationException("expired", expiry)))).isTrue();

		List<OAuth2Error> more = new ArrayList<>(expiry);
		more.addAll(JwtDecoding.namesCaller("sub").validate(expired).getErrors());
		assertThat(JwtDecoding.merelyExpired(new JwtValidationException("expired", more))).as("and names no caller")
			.isFalse();
		assertThat(JwtDecoding.merelyExpired(new InvalidBearerTokenException("bad signature"))).isFalse();
		assertThat(JwtDecoding.merelyExpired(new JwtValidationException("audience",
				List.of(new OAuth2Error("invalid_token", "The aud claim is not valid", null))))).isFalse();
	}

	private static Jwt jwt(Map<String, Object> claims) {
		Jwt.Builder jwt = Jwt.withTokenValue("t").header("alg", "RS256").issuedAt(Instant.now())
			.expiresAt(Instant.now().plusSeconds(60)).claim("iss", "https://idp.example.com");
		claims.forEach(jwt::claim);
		return jwt.build();
	}

}
