package dev.mcprelay.security;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

import dev.mcprelay.api.Caller;

/**
 * The caller a validated JWT stands for: its id from the configured {@code client-claim} (Spring Security's principal
 * name), its claims, and its scopes from {@code scope} and {@code scp}, each a space-separated string or a list of
 * strings (authorization servers write either). A token without either claim has no scopes; a claim of any other
 * shape counts for nothing, and {@link Caller} leaves out claims whose value is {@code null}: no token's shape makes
 * the relay fail.
 */
final class TokenCaller {

	private static final List<String> SCOPE_CLAIMS = List.of("scope", "scp");

	private TokenCaller() {
	}

	static Caller of(JwtAuthenticationToken token) {
		Map<String, Object> claims = token.getToken().getClaims();
		return new Caller(token.getName(), Caller.Kind.JWT, scopes(claims), claims);
	}

	/** The scopes of {@code scope} and {@code scp}, in either shape. */
	static Set<String> scopes(Map<String, Object> claims) {
		Set<String> scopes = new LinkedHashSet<>();
		for (String claim : SCOPE_CLAIMS) {
			Object value = claims.get(claim);
			if (value instanceof String text) {
				addSpaceSeparated(text, scopes);
			}
			else if (value instanceof Collection<?> values) {
				values.forEach(element -> {
					if (element instanceof String text) {
						addSpaceSeparated(text, scopes);
					}
				});
			}
		}
		return scopes;
	}

	private static void addSpaceSeparated(String text, Set<String> scopes) {
		for (String scope : text.trim().split("\\s+")) {
			if (!scope.isEmpty()) {
				scopes.add(scope);
			}
		}
	}

}
