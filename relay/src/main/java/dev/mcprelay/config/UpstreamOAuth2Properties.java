package dev.mcprelay.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DurationUnit;

/**
 * How the relay gets the access token it sends a server, {@code mcp-relay.servers.<id>.oauth2}: from an OAuth 2.0
 * authorization server, with Spring Security's OAuth2 client, instead of a static {@code authorization}.
 *
 * @param grant {@code client-credentials} (the relay's own token, shared by every caller) or {@code token-exchange}
 * (RFC 8693, security mode {@code jwt}: the caller's token exchanged for one for this server, per caller)
 * @param tokenUri the authorization server's token endpoint, an absolute http or https URL
 * @param issuerUri instead of {@code token-uri}: the authorization server's issuer, whose metadata (OpenID Connect
 * discovery or RFC 8414) names the token endpoint; read when the first request needs a token
 * @param clientId the relay's client id at the authorization server
 * @param clientSecret the relay's client secret (from the environment), sent with HTTP Basic; a secret, never logged
 * or printed
 * @param privateKey instead of {@code client-secret}: the relay's RSA private key, PEM (PKCS#8), with which it signs a
 * client assertion ({@code private_key_jwt}, RFC 7523); a secret, never logged or printed
 * @param keyId the {@code kid} of {@code private-key} as the authorization server knows it, or {@code null}
 * @param scopes the scopes asked for
 * @param audience the server's audience: sent as {@code audience}, and as the RFC 8707 {@code resource} when it is
 * an absolute URI
 * @param defaultTokenLifetime how long a token the authorization server gives without {@code expires_in} lives, for
 * the relay to renew it (a little before, as every token); a 401 from the upstream drops it sooner
 */
public record UpstreamOAuth2Properties(
		@DefaultValue("client-credentials") UpstreamGrant grant,
		String tokenUri,
		String issuerUri,
		String clientId,
		String clientSecret,
		String privateKey,
		String keyId,
		@DefaultValue List<String> scopes,
		String audience,
		@DurationUnit(ChronoUnit.SECONDS) @DefaultValue("5m") Duration defaultTokenLifetime) {

	public UpstreamOAuth2Properties {
		grant = grant == null ? UpstreamGrant.CLIENT_CREDENTIALS : grant;
		scopes = scopes == null ? List.of() : List.copyOf(scopes);
		defaultTokenLifetime = defaultTokenLifetime == null ? Duration.ofMinutes(5) : defaultTokenLifetime;
	}

	/** The grants the relay can use for an upstream's token. */
	public enum UpstreamGrant {

		/** The relay's own token (OAuth 2.0 client credentials). */
		CLIENT_CREDENTIALS,

		/** The caller's token exchanged for one for this server (RFC 8693). */
		TOKEN_EXCHANGE

	}

	@Override
	public String toString() {
		return "UpstreamOAuth2Properties[grant=" + grant + ", tokenUri=" + tokenUri + ", issuerUri=" + issuerUri
				+ ", clientId=" + clientId + ", clientSecret=" + (clientSecret == null ? "none" : "<redacted>") + ", privateKey="
				+ (privateKey == null ? "none" : "<redacted>") + ", keyId=" + keyId
				+ ", scopes=" + scopes + ", audience=" + audience + ", defaultTokenLifetime=" + defaultTokenLifetime + "]";
	}

}
