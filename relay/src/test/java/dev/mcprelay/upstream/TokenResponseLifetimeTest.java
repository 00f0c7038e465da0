package dev.mcprelay.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.mock.http.client.reactive.MockClientHttpResponse;
import org.springframework.security.oauth2.core.OAuth2AuthorizationException;
import org.springframework.security.oauth2.core.endpoint.OAuth2AccessTokenResponse;
import org.springframework.web.reactive.function.BodyExtractor;
import org.springframework.web.reactive.function.client.ExchangeStrategies;

import reactor.core.publisher.Flux;

/**
 * An authorization server's token response as the relay reads it: without {@code expires_in} the token lives the
 * configured default (Spring Security alone would say one second); with it, as it says; no body, an error, or a body
 * too large is an invalid token response, never nothing.
 */
class TokenResponseLifetimeTest {

	private final TokenResponseLifetime extractor = new TokenResponseLifetime(Duration.ofMinutes(5));

	@Test
	void aTokenWithoutExpiresInLivesTheDefault() {
		OAuth2AccessTokenResponse token = read("{\"access_token\":\"t\",\"token_type\":\"Bearer\"}");
		assertThat(Duration.between(token.getAccessToken().getIssuedAt(), token.getAccessToken().getExpiresAt()))
			.isEqualTo(Duration.ofMinutes(5));
		OAuth2AccessTokenResponse said = read("{\"access_token\":\"t\",\"token_type\":\"Bearer\",\"expires_in\":60}");
		assertThat(Duration.between(said.getAccessToken().getIssuedAt(), said.getAccessToken().getExpiresAt()))
			.isEqualTo(Duration.ofSeconds(60));
	}

	@Test
	void noBodyAnErrorOrTooMuchIsAnInvalidTokenResponse() {
		assertThatThrownBy(() -> read("")).isInstanceOfSatisfying(OAuth2AuthorizationException.class,
				invalid -> assertThat(invalid.getError().getErrorCode()).isEqualTo("invalid_token_response"));
		assertThatThrownBy(() -> read("{\"error\":\"invalid_client\"}")).isInstanceOfSatisfying(
				OAuth2AuthorizationException.class,
				refused -> assertThat(refused.getError().getErrorCode()).isEqualTo("invalid_client"));
		String huge = "{\"access_token\":\"" + "a".repeat(TokenResponseLifetime.MAX_BODY) + "\"}";
		assertThatThrownBy(() -> read(huge)).isInstanceOfSatisfying(OAuth2AuthorizationException.class,
				invalid -> assertThat(invalid.getError().getErrorCode()).isEqualTo("invalid_token_response"));
	}

	private OAuth2AccessTokenResponse read(String body) {
		MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
		response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
		response.setBody(body.isEmpty() ? Flux.empty()
				: Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body.getBytes(StandardCharsets.UTF_8))));
		return extractor.extract(response, new BodyExtractor.Context() {

			@Override
			public List<HttpMessageReader<?>> messageReaders() {
				return ExchangeStrategies.withDefaults().messageReaders();
			}

			@Override
			public Optional<ServerHttpResponse> serverResponse() {
				return Optional.empty();
			}

			@Override
			public Map<String, Object> hints() {
				return Map.of();
			}

		}).block(Duration.ofSeconds(5));
	}

}
