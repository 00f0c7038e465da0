package dev.mcprelay.config;

import java.util.List;

import org.springframework.boot.context.properties.bind.DefaultValue;

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
 * @param clientClaim the claim that names the caller (access log, interceptors)
 */
public record JwtProperties(
		String issuerUri,
		String jwkSetUri,
		String issuer,
		String audience,
		@DefaultValue List<String> requiredScopes,
		@DefaultValue("sub") String clientClaim) {

	public JwtProperties {
		requiredScopes = requiredScopes == null ? List.of() : List.copyOf(requiredScopes);
		clientClaim = clientClaim == null || clientClaim.isBlank() ? "sub" : clientClaim;
	}

	/** The issuer tokens must come from ({@code issuer-uri}, else {@code issuer}); {@code null} when neither is set. */
	public String expectedIssuer() {
		return issuerUri != null ? issuerUri : issuer;
	}

}
