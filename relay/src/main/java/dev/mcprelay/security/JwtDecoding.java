package dev.mcprelay.security;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2ErrorCodes;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimNames;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.web.reactive.function.client.WebClient;

import dev.mcprelay.config.JwtProperties;
import io.netty.channel.ChannelOption;
import reactor.netty.http.client.HttpClient;

/**
 * The {@link ReactiveJwtDecoder} of {@code jwt} mode: Spring Security's Nimbus decoder with the keys from
 * {@code issuer-uri} (its metadata, fetched on first use and cached) or {@code jwk-set-uri}, checking the signature,
 * {@code exp} and {@code nbf} (60 s of clock skew), {@code iss} when an issuer is configured ({@code issuer-uri}, or
 * {@code issuer} beside {@code jwk-set-uri}), and {@code aud} when an audience is. Unsigned tokens ({@code alg: none}) are refused by the decoder itself.
 *
 * <p>An accepted token is kept a while by the front door ({@link ValidatedTokens}): the same token on the next request
 * is not checked again.
 *
 * <p>Fetching the keys is bounded ({@value #KEYS_TIMEOUT_SECONDS} s to connect and to answer): a key source that is
 * down, refuses connections, hangs or answers with something that is no key set fails the token's check as a
 * {@link JwtException} that is not a bad token, which the front door answers 503, never a hang and never a 401 the
 * client would take for its own fault; tokens signed with keys already fetched go on being accepted meanwhile.
 */
final class JwtDecoding {

	static final int KEYS_TIMEOUT_SECONDS = 5;

	private JwtDecoding() {
	}

	static ReactiveJwtDecoder decoder(JwtProperties jwt) {
		Duration timeout = Duration.ofSeconds(KEYS_TIMEOUT_SECONDS);
		HttpClient http = HttpClient.create()
			.option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) timeout.toMillis())
			.responseTimeout(timeout)
			.followRedirect(false);
		WebClient keys = WebClient.builder().clientConnector(new ReactorClientHttpConnector(http)).build();
		NimbusReactiveJwtDecoder decoder = (jwt.issuerUri() != null
				? NimbusReactiveJwtDecoder.withIssuerLocation(jwt.issuerUri())
				: NimbusReactiveJwtDecoder.withJwkSetUri(jwt.jwkSetUri()))
			.webClient(keys)
			.build();
		List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
		if (jwt.expectedIssuer() != null) {
			validators.add(new JwtIssuerValidator(jwt.expectedIssuer()));
		}
		if (jwt.audience() != null && !jwt.audience().isBlank()) {
			validators.add(audience(jwt.audience()));
		}
		// createDefaultWithValidators refuses an empty list: with jwk-set-uri and neither issuer nor audience, only the
		// defaults (exp, nbf) apply, as documented (the relay warns about the missing issuer at start-up)
		decoder.setJwtValidator(validators.isEmpty() ? JwtValidators.createDefault()
				: JwtValidators.createDefaultWithValidators(validators));
		Duration overall = timeout.multipliedBy(3);
		return token -> decoder.decode(token)
			.timeout(overall)
			.onErrorMap(error -> !(error instanceof JwtException),
					error -> new JwtException(error instanceof TimeoutException
							? "The authorization server's keys did not arrive within " + overall.toSeconds() + "s"
							: "The authorization server's keys could not be fetched: " + error.getMessage(), error));
	}

	private static OAuth2TokenValidator<Jwt> audience(String audience) {
		OAuth2Error wrongAudience = new OAuth2Error(OAuth2ErrorCodes.INVALID_TOKEN, "The aud claim is not valid", null);
		return token -> {
			List<String> audiences = token.getClaimAsStringList(JwtClaimNames.AUD);
			return audiences != null && audiences.contains(audience) ? OAuth2TokenValidatorResult.success()
					: OAuth2TokenValidatorResult.failure(wrongAudience);
		};
	}

}
