package dev.mcprelay.security;

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

	private static final String BEARER = "Bearer ";

	@Override
	public Authentication read(HttpHeaders headers) {
		String authorization = headers.getFirst(HttpHeaders.AUTHORIZATION);
		if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, 6)) {
			return null;
		}
		if (!authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
				|| !isB64Token(authorization, BEARER.length())) {
			throw new InvalidBearerTokenException("Bearer token is malformed");
		}
		return new BearerTokenAuthenticationToken(authorization.substring(BEARER.length()));
	}

	/**
	 * Whether {@code value} from {@code start} on is one RFC 6750 {@code b64token}: {@code 1*( ALPHA / DIGIT / "-" /
	 * "." / "_" / "~" / "+" / "/" ) *"="} (a loop, not a regular expression: it runs on every request).
	 */
	static boolean isB64Token(String value, int start) {
		int end = value.length();
		while (end > start && value.charAt(end - 1) == '=') {
			end--;
		}
		if (end == start) {
			return false;
		}
		for (int i = start; i < end; i++) {
			char c = value.charAt(i);
			boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
					|| c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
			if (!allowed) {
				return false;
			}
		}
		return true;
	}

}
