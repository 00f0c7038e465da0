package dev.mcprelay.security;

import java.util.List;

import org.springframework.http.HttpHeaders;
import org.springframework.security.core.Authentication;

/**
 * Reads the API key a request presents: {@code X-Api-Key: <key>}, else {@code Authorization: Bearer <key>}. No
 * credentials at all is {@code null} (the request is then refused as unauthenticated, reason
 * {@code missing_credentials}); credentials in any other shape (another scheme, an empty key, a header sent twice, a
 * key with spaces or control characters) fail with reason {@code malformed_credentials}.
 */
final class ApiKeyCredentials implements CredentialReader {

	static final String API_KEY_HEADER = "X-Api-Key";

	private static final String BEARER = "bearer ";

	@Override
	public Authentication read(HttpHeaders headers) {
		List<String> apiKey = headers.get(API_KEY_HEADER);
		if (apiKey != null) {
			return presented(single(apiKey));
		}
		List<String> authorization = headers.get(HttpHeaders.AUTHORIZATION);
		if (authorization == null) {
			return null;
		}
		String value = single(authorization);
		if (value == null || !value.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
			throw malformed();
		}
		return presented(value.substring(BEARER.length()).strip());
	}

	private static String single(List<String> values) {
		return values.size() == 1 ? values.get(0) : null;
	}

	private static Authentication presented(String key) {
		if (key == null || key.isEmpty() || !key.chars().allMatch(c -> c > ' ' && c < 127)) {
			throw malformed();
		}
		return ApiKeyAuthentication.presented(key);
	}

	private static FrontDoorException malformed() {
		return FrontDoorException.unauthenticated("malformed_credentials",
				"The credentials are malformed: send Authorization: Bearer <key> or X-Api-Key: <key>");
	}

}
