package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;

import reactor.core.publisher.Mono;

/**
 * Accepted tokens are checked once and kept, never past their {@code exp}; refused ones are checked every time.
 */
class ValidatedTokensTest {

	private final List<String> checked = new ArrayList<>();

	@Test
	void theSameAcceptedTokenIsCheckedOnce() {
		ValidatedTokens tokens = new ValidatedTokens(token -> accept(token, Instant.now().plusSeconds(300)));

		for (int i = 0; i < 3; i++) {
			assertThat(tokens.decode("token-a").block().getSubject()).isEqualTo("alice");
		}
		tokens.decode("token-b").block();

		assertThat(checked).containsExactly("token-a", "token-b");
	}

	@Test
	void aRefusedTokenIsCheckedEveryTime() {
		ValidatedTokens tokens = new ValidatedTokens(token -> {
			checked.add(token);
			return Mono.error(new BadJwtException("bad signature"));
		});

		for (int i = 0; i < 2; i++) {
			assertThatThrownBy(() -> tokens.decode("forged").block()).isInstanceOf(BadJwtException.class);
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
			checked.add(token);
			return Mono.error(new BadJwtException("expired"));
		});

		tokens.decode("short-lived").block();
		Thread.sleep(Math.max(0, Duration.between(Instant.now(), expiry).toMillis()) + 100);

		assertThatThrownBy(() -> tokens.decode("short-lived").block()).isInstanceOf(BadJwtException.class);
		assertThat(checked).as("checked again once it expired").containsExactly("short-lived", "short-lived");
	}

	private Mono<Jwt> accept(String token, Instant expiry) {
		checked.add(token);
		return Mono.just(Jwt.withTokenValue(token)
			.header("alg", "RS256")
			.subject("alice")
			.issuedAt(Instant.now().minusSeconds(1))
			.expiresAt(expiry)
			.build());
	}

}
