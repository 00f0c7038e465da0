package dev.mcprelay.security;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.http.HttpHeaders;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

/**
 * Reads the access token of {@code jwt} mode from {@code Authorization: Bearer <token>} (RFC 6750 section 2.1), as
 * Spring Security's bearer-token converter does, on headers rather than on a WebFlux exchange: an {@code Authorization}
 * of another scheme, or none, is no credential ({@code null}, refused as {@code missing_credentials}); a
 * {@code Bearer} value that is not one RFC 6750 {@code b64token} fails with Spring Security's
 * {@link InvalidBearerTokenException} ("Bearer token is malformed"). The token is read from the header only, never
 * from the query or a form body.
 */
final class BearerTokenCredentials implements CredentialReader {

	private static final Pattern BEARER = Pattern.compile("^Bearer (?<token>[a-zA-Z0-9-._~+/]+=*)$",
			Pattern.CASE_INSENSITIVE);

	@Override
	public Authentication read(HttpHeaders headers) {
		String authorization = headers.getFirst(HttpHeaders.AUTHORIZATION);
		if (authorization == null || !authorization.regionMatches(true, 0, "bearer", 0, 6)) {
			return null;
		}
		Matcher matcher = BEARER.matcher(authorization);
		if (!matcher.matches()) {
			throw new InvalidBearerTokenException("Bearer token is malformed");
		}
		return new BearerTokenAuthenticationToken(matcher.group("token"));
	}

}
