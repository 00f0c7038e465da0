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
import org.springframework.security.oauth2.jwt.JwtValidationException;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.web.reactive.function.client.WebClient;

import com.nimbusds.jose.jwk.source.JWKSecurityContextJWKSet;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;

import dev.mcprelay.config.JwtProperties;
import io.netty.channel.ChannelOption;
import reactor.netty.http.client.HttpClient;

/**
 * The {@link ReactiveJwtDecoder} of {@code jwt} mode: Spring Security's Nimbus decoder with the keys from
 * {@code issuer-uri} (its metadata, fetched on first use and kept) or {@code jwk-set-uri}, held and refreshed as
 * {@link JwkSetKeys} says, checking the signature (RSA, RSA-PSS or EC),
 * {@code exp} and {@code nbf} (60 s of clock skew), {@code iss} when an issuer is configured ({@code issuer-uri}, or
 * {@code issuer} beside {@code jwk-set-uri}), {@code aud} when an audience is, and that the {@code client-claim} names a
 * caller ({@link #namesCaller}). Unsigned tokens ({@code alg: none}) are refused by the decoder itself.
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

	/** The signing keys {@code jwt} names, fetched as {@link JwkSetKeys} says, with bounded connections. */
	static JwkSetKeys keys(JwtProperties jwt) {
		Duration timeout = Duration.ofSeconds(KEYS_TIMEOUT_SECONDS);
		HttpClient http = HttpClient.create()
			.option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) timeout.toMillis())
			.responseTimeout(timeout)
			.followRedirect(false);
		WebClient web = WebClient.builder().clientConnector(new ReactorClientHttpConnector(http)).build();
		return new JwkSetKeys(web, jwt.jwkSetUri(), jwt.issuerUri(), jwt.jwkSetRefreshInterval(),
				jwt.jwkSetRefetchCooldown());
	}

	static ReactiveJwtDecoder decoder(JwtProperties jwt, JwkSetKeys keys) {
		NimbusReactiveJwtDecoder decoder = NimbusReactiveJwtDecoder.withJwkSource(keys)
			.jwtProcessorCustomizer(processor -> processor
				.setJWSKeySelector(new JWSVerificationKeySelector<>(JwkSetKeys.ALGORITHMS, new JWKSecurityContextJWKSet())))
			.build();
		List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
		if (jwt.expectedIssuer() != null) {
			validators.add(new JwtIssuerValidator(jwt.expectedIssuer()));
		}
		if (jwt.audience() != null && !jwt.audience().isBlank()) {
			validators.add(audience(jwt.audience()));
		}
		validators.add(namesCaller(jwt.clientClaim()));
		decoder.setJwtValidator(JwtValidators.createDefaultWithValidators(validators));
		Duration overall = JwkSetKeys.FETCH_BOUND;
		return token -> decoder.decode(token)
			.timeout(overall)
			.onErrorMap(error -> !(error instanceof JwtException),
					error -> new JwtException(error instanceof TimeoutException
							? "The authorization server's keys did not arrive within " + overall.toSeconds() + "s"
							: "The authorization server's keys could not be fetched: " + error.getMessage(), error));
	}

	/**
	 * The claim that names the caller ({@code client-claim}) must be a string that is not blank: sessions, quotas and
	 * rate limits are kept per caller, so tokens without one (machine tokens without {@code email}, say) would all be
	 * one caller. Refused as {@code invalid_token}; the description carries {@link #NAMES_NO_CALLER}, which
	 * {@link FrontDoorAnswers} reads as reason {@code missing_client_claim}.
	 */
	static OAuth2TokenValidator<Jwt> namesCaller(String claim) {
		OAuth2Error noCaller = new OAuth2Error(OAuth2ErrorCodes.INVALID_TOKEN,
				"The " + claim + " claim " + NAMES_NO_CALLER, null);
		return token -> token.getClaims().get(claim) instanceof String id && !id.isBlank()
				? OAuth2TokenValidatorResult.success() : OAuth2TokenValidatorResult.failure(noCaller);
	}

	/**
	 * Whether {@code refused}, a token's refusal by a decoder of {@link #decoder}, is only for its expiry: its signature
	 * checked and every other claim accepted, every error the validators found the one of {@code exp} being past
	 * (Spring Security's {@code JwtTimestampValidator}, described {@value #EXPIRED}...).
	 */
	static boolean merelyExpired(Throwable refused) {
		for (Throwable cause = refused; cause != null; cause = cause.getCause()) {
			if (cause instanceof JwtValidationException invalid) {
				return !invalid.getErrors().isEmpty() && invalid.getErrors().stream()
					.allMatch(error -> error.getDescription() != null && error.getDescription().startsWith(EXPIRED));
			}
		}
		return false;
	}

	/** How Spring Security's timestamp validator begins the description of a token whose {@code exp} is past. */
	static final String EXPIRED = "Jwt expired at ";

	/** How a token refused for its missing caller claim is described. */
	static final String NAMES_NO_CALLER = "is missing, blank or not a string: it must name the caller";

	private static OAuth2TokenValidator<Jwt> audience(String audience) {
		OAuth2Error wrongAudience = new OAuth2Error(OAuth2ErrorCodes.INVALID_TOKEN, "The aud claim is not valid", null);
		return token -> {
			List<String> audiences = token.getClaimAsStringList(JwtClaimNames.AUD);
			return audiences != null && audiences.contains(audience) ? OAuth2TokenValidatorResult.success()
					: OAuth2TokenValidatorResult.failure(wrongAudience);
		};
	}

}
