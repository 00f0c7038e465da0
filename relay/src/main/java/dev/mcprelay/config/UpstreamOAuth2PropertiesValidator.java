package dev.mcprelay.config;

import java.util.List;

/**
 * Checks {@code mcp-relay.servers.<id>.oauth2}: exclusive with a static {@code authorization}; one of
 * {@code token-uri} and {@code issuer-uri}, an absolute http(s) URL; a {@code client-id}; one of
 * {@code client-secret} and {@code private-key} (an RSA key that parses); {@code token-exchange} only in security
 * mode {@code jwt}. No problem shows a secret.
 */
final class UpstreamOAuth2PropertiesValidator {

	private UpstreamOAuth2PropertiesValidator() {
	}

	/** {@code servers.<id>.oauth2}: where the server's token comes from, instead of a static authorization. */
	static void validate(String path, ServerProperties server, SecurityMode mode,
			List<ConfigurationProblem> problems) {
		UpstreamOAuth2Properties oauth2 = server.oauth2();
		String at = path + ".oauth2";
		if (server.authorization() != null) {
			problems.add(new ConfigurationProblem(path + ".authorization", "is set beside oauth2",
					"Keep one: a static authorization, or oauth2 to get tokens from an authorization server"));
		}
		boolean tokenUri = oauth2.tokenUri() != null && !oauth2.tokenUri().isBlank();
		boolean issuerUri = oauth2.issuerUri() != null && !oauth2.issuerUri().isBlank();
		if (tokenUri == issuerUri) {
			problems.add(new ConfigurationProblem(at + ".token-uri", tokenUri ? "is set beside issuer-uri" : "is missing",
					"Write the authorization server's token endpoint (token-uri, e.g. https://idp.example.com/oauth2/token) "
							+ "or its issuer (issuer-uri), not both"));
		}
		else if (tokenUri) {
			ServerPropertiesValidator.validateUrl(at + ".token-uri", oauth2.tokenUri(), problems);
		}
		else {
			ServerPropertiesValidator.validateUrl(at + ".issuer-uri", oauth2.issuerUri(), problems);
		}
		if (oauth2.clientId() == null || oauth2.clientId().isBlank()) {
			problems.add(new ConfigurationProblem(at + ".client-id", "is missing",
					"Write the relay's client id at the authorization server"));
		}
		boolean secret = oauth2.clientSecret() != null && !oauth2.clientSecret().isBlank();
		boolean key = oauth2.privateKey() != null && !oauth2.privateKey().isBlank();
		if (secret == key) {
			problems.add(new ConfigurationProblem(at + ".client-secret", secret ? "is set beside private-key" : "is missing",
					"Write one way for the relay to authenticate: client-secret: ${GITHUB_CLIENT_SECRET}, or private-key "
							+ "(an RSA key in PEM, PKCS#8) for private_key_jwt"));
		}
		else if (!secret && !UnresolvedVariables.holdsVariable(oauth2.privateKey())
				&& ClientKeys.rsaKey(oauth2.privateKey(), oauth2.keyId()) == null) {
			problems.add(new ConfigurationProblem(at + ".private-key", "is not an RSA private key in PEM (PKCS#8)",
					"Write the key as -----BEGIN PRIVATE KEY----- ... -----END PRIVATE KEY-----, e.g. from an environment "
							+ "variable"));
		}
		if (oauth2.defaultTokenLifetime().compareTo(java.time.Duration.ofSeconds(10)) < 0) {
			problems.add(new ConfigurationProblem(at + ".default-token-lifetime", "is shorter than 10s",
					"Write how long a token given without expires_in lives, e.g. 5m: the relay renews it a little before"));
		}
		if (oauth2.grant() == UpstreamOAuth2Properties.UpstreamGrant.TOKEN_EXCHANGE && mode != SecurityMode.JWT) {
			problems.add(new ConfigurationProblem(at + ".grant", "is token-exchange, which exchanges the caller's token, "
					+ "but mcp-relay.security.mode is not jwt",
					"Set mcp-relay.security.mode: jwt, or use grant: client-credentials"));
		}
	}

}
