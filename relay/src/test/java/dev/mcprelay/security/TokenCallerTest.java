package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

import dev.mcprelay.api.Caller;

/** A validated token of any shape is a caller: scopes from {@code scope} or {@code scp}, null claims left out. */
class TokenCallerTest {

	@Test
	void scopesAreReadFromEitherClaimInEitherShape() {
		assertThat(TokenCaller.scopes(Map.of())).as("no scope claim: no scopes").isEmpty();
		assertThat(TokenCaller.scopes(Map.of("scope", "mcp  mcp:read "))).containsExactly("mcp", "mcp:read");
		assertThat(TokenCaller.scopes(Map.of("scp", List.of("mcp", "a b")))).containsExactly("mcp", "a", "b");
		assertThat(TokenCaller.scopes(Map.of("scope", "mcp", "scp", "admin"))).containsExactly("mcp", "admin");
		assertThat(TokenCaller.scopes(Map.of("scope", 42, "scp", List.of(1, true)))).as("other shapes count for nothing")
			.isEmpty();
	}

	@Test
	void aTokenWithNullClaimsIsACallerNotACrash() {
		Map<String, Object> claims = new HashMap<>();
		claims.put("sub", "alice");
		claims.put("scope", null);
		claims.put("tenant", null);
		Jwt jwt = new Jwt("t", Instant.now(), Instant.now().plusSeconds(60), Map.of("alg", "RS256"), claims);

		Caller caller = TokenCaller.of(new JwtAuthenticationToken(jwt, List.of(), "alice"));

		assertThat(caller.id()).isEqualTo("alice");
		assertThat(caller.scopes()).isEmpty();
		assertThat(caller.claims()).containsOnlyKeys("sub");
	}

}
