package dev.mcprelay.security;

import java.util.List;

import org.springframework.http.HttpHeaders;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.server.authentication.ServerAuthenticationConverter;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Mono;

/**
 * Reads the API key a request presents: {@code X-Api-Key: <key>}, else {@code Authorization: Bearer <key>}. No
 * credentials at all is empty (the request is then refused as unauthenticated, reason {@code missing_credentials});
 * credentials in any other shape (another scheme, an empty key, a header sent twice, a key with spaces or control
 * characters) fail with reason {@code malformed_credentials}.
 */
final class ApiKeyCredentials implements ServerAuthenticationConverter {

	static final String API_KEY_HEADER = "X-Api-Key";

	private static final String BEARER = "bearer ";

	@Override
	public Mono<Authentication> convert(ServerWebExchange exchange) {
		HttpHeaders headers = exchange.getRequest().getHeaders();
		List<String> apiKey = headers.get(API_KEY_HEADER);
		if (apiKey != null) {
			return single(apiKey).map(ApiKeyCredentials::presented).orElseGet(ApiKeyCredentials::malformed);
		}
		List<String> authorization = headers.get(HttpHeaders.AUTHORIZATION);
		if (authorization == null) {
			return Mono.empty();
		}
		return single(authorization).filter(value -> value.regionMatches(true, 0, BEARER, 0, BEARER.length()))
			.map(value -> value.substring(BEARER.length()).strip())
			.map(ApiKeyCredentials::presented)
			.orElseGet(ApiKeyCredentials::malformed);
	}

	private static java.util.Optional<String> single(List<String> values) {
		return values.size() == 1 ? java.util.Optional.of(values.get(0)) : java.util.Optional.empty();
	}

	private static Mono<Authentication> presented(String key) {
		if (key.isEmpty() || !key.chars().allMatch(c -> c > ' ' && c < 127)) {
			return malformed();
		}
		return Mono.just(ApiKeyAuthentication.presented(key));
	}

	private static Mono<Authentication> malformed() {
		return Mono.error(FrontDoorException.unauthenticated("malformed_credentials",
				"The credentials are malformed: send Authorization: Bearer <key> or X-Api-Key: <key>"));
	}

}
