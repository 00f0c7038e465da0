package dev.mcprelay.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DurationUnit;

/**
 * How JWT access tokens are validated, {@code mcp-relay.security.jwt}, when {@code security.mode} is {@code jwt}.
 * Exactly one of {@code issuer-uri} and {@code jwk-set-uri} says where the signing keys come from.
 *
 * @param issuerUri the authorization server's issuer: its metadata names the JWK Set, and a token's {@code iss} must be
 * this value; it is also the authorization server the RFC 9728 metadata names
 * @param jwkSetUri the JWK Set to verify signatures with, when the issuer publishes no metadata
 * @param issuer with {@code jwk-set-uri}: the issuer a token's {@code iss} must be, and the authorization server the
 * RFC 9728 metadata names (with {@code issuer-uri} that is already the issuer, so this is not written)
 * @param audience the value a token's {@code aud} must contain; unset, the audience is not checked
 * @param requiredScopes scopes every token must carry, whatever the server
 * @param clientClaim the claim that names the caller (access log, interceptors, sessions, rate limits); a token without
 * it, or whose value is blank or no string, is refused
 * @param jwkSetRefreshInterval how often the signing keys are fetched again: a key removed from the JWK Set is no longer
 * trusted after this, one fetch and the 30 s an accepted token is kept
 * @param managementScopes the scopes of which a token needs one to read the relay's management endpoints on the relay's
 * port (metrics and any other exposed actuator endpoint but health); empty, no token may
 * @param jwkSetRefetchCooldown the least time between two fetches of the keys caused by tokens that name a key the
 * relay does not hold: within it such tokens are refused without a fetch, so made-up key ids cannot multiply fetches
 */
public record JwtProperties(
		String issuerUri,
		String jwkSetUri,
		String issuer,
		String audience,
		@DefaultValue List<String> requiredScopes,
		@DefaultValue("sub") String clientClaim,
		@DefaultValue List<String> managementScopes,
		@DurationUnit(ChronoUnit.SECONDS) @DefaultValue("5m") Duration jwkSetRefreshInterval,
		@DurationUnit(ChronoUnit.SECONDS) @DefaultValue("30s") Duration jwkSetRefetchCooldown) {

	public JwtProperties {
		requiredScopes = requiredScopes == null ? List.of() : List.copyOf(requiredScopes);
		clientClaim = clientClaim == null || clientClaim.isBlank() ? "sub" : clientClaim;
		managementScopes = managementScopes == null ? List.of() : List.copyOf(managementScopes);
		jwkSetRefreshInterval = jwkSetRefreshInterval == null ? Duration.ofMinutes(5) : jwkSetRefreshInterval;
		jwkSetRefetchCooldown = jwkSetRefetchCooldown == null ? Duration.ofSeconds(30) : jwkSetRefetchCooldown;
	}

	/** The issuer tokens must come from ({@code issuer-uri}, else {@code issuer}); {@code null} when neither is set. */
	public String expectedIssuer() {
		return issuerUri != null ? issuerUri : issuer;
	}

}
