package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

import reactor.core.publisher.Mono;

/**
 * Accepted tokens are checked once and kept, never past their {@code exp}; refused ones are checked every time.
 */
class ValidatedTokensTest {

	private final List<String> checked = new ArrayList<>();

	@Test
	void theSameAcceptedTokenIsCheckedOnce() {
		ValidatedTokens tokens = new ValidatedTokens(token -> accept(token, Instant.now().plusSeconds(300)));

		Authentication first = tokens.authenticate(bearer("token-a")).block();
		for (int i = 0; i < 2; i++) {
			assertThat(tokens.authenticate(bearer("token-a")).block()).as("what was accepted, caller and all")
				.isSameAs(first);
		}
		tokens.authenticate(bearer("token-b")).block();

		assertThat(((TokenAuthentication) first).caller().id()).isEqualTo("alice");
		assertThat(checked).containsExactly("token-a", "token-b");
	}

	@Test
	void aRefusedTokenIsCheckedEveryTime() {
		ValidatedTokens tokens = new ValidatedTokens(token -> {
			checked.add(tokenOf(token));
			return Mono.error(new InvalidBearerTokenException("bad signature"));
		});

		for (int i = 0; i < 2; i++) {
			assertThatThrownBy(() -> tokens.authenticate(bearer("forged")).block())
				.isInstanceOf(InvalidBearerTokenException.class);
		}

		assertThat(checked).containsExactly("forged", "forged");
	}

	@Test
	void aKeptTokenIsNotAcceptedPastItsExpiry() throws InterruptedException {
		Instant expiry = Instant.now().plusMillis(1500);
		ValidatedTokens tokens = new ValidatedTokens(token -> {
			if (Instant.now().isBefore(expiry)) {
				return accept(token, expiry);
			}
			checked.add(tokenOf(token));
			return Mono.error(new InvalidBearerTokenException("expired"));
		});

		tokens.authenticate(bearer("short-lived")).block();
		Thread.sleep(Math.max(0, Duration.between(Instant.now(), expiry).toMillis()) + 100);

		assertThatThrownBy(() -> tokens.authenticate(bearer("short-lived")).block())
			.isInstanceOf(InvalidBearerTokenException.class);
		assertThat(checked).as("checked again once it expired").containsExactly("short-lived", "short-lived");
	}

	private Mono<Authentication> accept(Authentication presented, Instant expiry) {
		String token = tokenOf(presented);
		checked.add(token);
		Jwt jwt = Jwt.withTokenValue(token)
			.header("alg", "RS256")
			.subject("alice")
			.issuedAt(Instant.now().minusSeconds(1))
			.expiresAt(expiry)
			.build();
		return Mono.just(new TokenAuthentication(new JwtAuthenticationToken(jwt, List.of(), "alice")));
	}

	private static BearerTokenAuthenticationToken bearer(String token) {
		return new BearerTokenAuthenticationToken(token);
	}

	private static String tokenOf(Authentication presented) {
		return ((BearerTokenAuthenticationToken) presented).getToken();
	}

}
