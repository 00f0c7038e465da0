package dev.mcprelay.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks {@code mcp-relay.security}: a mode is chosen (there is no silent default), the chosen mode has what it needs,
 * and nothing is configured for a mode that is not chosen (a key list under {@code jwt} mode would otherwise look like
 * protection and be none). Key hashes are never quoted.
 */
final class SecurityPropertiesValidator {

	private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-fA-F]{64}");

	private static final String PATH = "mcp-relay.security";

	private SecurityPropertiesValidator() {
	}

	static List<ConfigurationProblem> validate(RelayProperties properties) {
		List<ConfigurationProblem> problems = new java.util.ArrayList<>();
		SecurityProperties security = properties.security();
		SecurityMode mode = security.mode();
		if (mode == null) {
			problems.add(new ConfigurationProblem(PATH + ".mode", "is not set, and the relay does not guess who may call it",
					"Write one of: api-key (callers present a key you configure under mcp-relay.security.api-keys), "
							+ "jwt (callers present an OAuth access token, checked under mcp-relay.security.jwt), "
							+ "none (anyone who reaches the port is served with the configured upstream credentials)"));
		}
		if (mode == SecurityMode.API_KEY) {
			Set<String> ids = new java.util.HashSet<>(properties.servers().keySet());
			ids.addAll(properties.virtualServers().keySet());
			validateApiKeys(security.apiKeys(), ids, problems);
		}
		else if (!security.apiKeys().isEmpty()) {
			problems.add(new ConfigurationProblem(PATH + ".api-keys", "are configured, but the mode is not api-key",
					"Set mcp-relay.security.mode: api-key, or remove the keys"));
		}
		JwtProperties jwt = security.jwt();
		if (mode == SecurityMode.JWT) {
			validateJwt(jwt, problems);
		}
		else if (jwt.issuerUri() != null || jwt.jwkSetUri() != null || jwt.issuer() != null) {
			problems.add(new ConfigurationProblem(PATH + ".jwt", "is configured, but the mode is not jwt",
					"Set mcp-relay.security.mode: jwt, or remove mcp-relay.security.jwt"));
		}
		return problems;
	}

	private static void validateApiKeys(List<ApiKeyProperties> keys, Set<String> servers,
			List<ConfigurationProblem> problems) {
		if (keys.isEmpty()) {
			problems.add(new ConfigurationProblem(PATH + ".api-keys", "is empty, so no caller could ever be served",
					"Add a key: { client: my-agent, key-sha256: <hex SHA-256 of the key>, servers: [\"*\"] }"));
		}
		Set<String> clients = new HashSet<>();
		Set<String> hashes = new HashSet<>();
		for (int i = 0; i < keys.size(); i++) {
			String path = PATH + ".api-keys[" + i + "]";
			ApiKeyProperties key = keys.get(i);
			if (key.client() == null || key.client().isBlank()) {
				problems.add(new ConfigurationProblem(path + ".client", "is missing",
						"Name the caller, e.g. ci-bot: it appears in logs and metrics"));
			}
			else if (!clients.add(key.client())) {
				problems.add(new ConfigurationProblem(path + ".client", "'" + key.client() + "' names two keys",
						"Give each key a client id of its own"));
			}
			boolean unresolved = UnresolvedVariables.holdsVariable(key.keySha256());
			if (!unresolved && (key.keySha256() == null || !SHA256_HEX.matcher(key.keySha256()).matches())) {
				problems.add(new ConfigurationProblem(path + ".key-sha256", "is not 64 hex digits",
						"Write the key's hex SHA-256 (printf %s \"$KEY\" | sha256sum), never the key itself"));
			}
			else if (!unresolved && !hashes.add(key.keySha256().toLowerCase(Locale.ROOT))) {
				problems.add(new ConfigurationProblem(path + ".key-sha256", "is the hash of another key too",
						"Give each client a key of its own"));
			}
			if (key.servers().isEmpty() && !key.management()) {
				problems.add(new ConfigurationProblem(path + ".servers", "is empty, so the key opens nothing",
						"List the server ids it may use, or [\"*\"] for all (or set management: true for a key that "
								+ "reads the management endpoints only)"));
			}
			for (int s = 0; s < key.servers().size(); s++) {
				String server = key.servers().get(s);
				if (server == null || !(server.equals("*") || servers.contains(server))) {
					problems.add(new ConfigurationProblem(path + ".servers[" + s + "]",
							"'" + server + "' is not a configured server",
							"Write an id under mcp-relay.servers or mcp-relay.virtual-servers, or *"));
				}
			}
		}
	}

	private static void validateJwt(JwtProperties jwt, List<ConfigurationProblem> problems) {
		boolean issuer = jwt.issuerUri() != null;
		boolean jwkSet = jwt.jwkSetUri() != null;
		if (issuer == jwkSet) {
			problems.add(new ConfigurationProblem(PATH + ".jwt",
					issuer ? "has both issuer-uri and jwk-set-uri" : "has neither issuer-uri nor jwk-set-uri",
					"Write issuer-uri (the authorization server's issuer; its metadata names the keys), or jwk-set-uri "
							+ "when it publishes no metadata"));
		}
		if (issuer) {
			requireHttpUrl(PATH + ".jwt.issuer-uri", jwt.issuerUri(), problems);
		}
		if (jwkSet) {
			requireHttpUrl(PATH + ".jwt.jwk-set-uri", jwt.jwkSetUri(), problems);
		}
		if (jwt.issuer() != null) {
			if (issuer) {
				problems.add(new ConfigurationProblem(PATH + ".jwt.issuer", "is set beside issuer-uri, which is the issuer",
						"Remove issuer: it is for jwk-set-uri, when the authorization server publishes no metadata"));
			}
			else {
				requireHttpUrl(PATH + ".jwt.issuer", jwt.issuer(), problems);
			}
		}
		if (jwt.jwkSetRefreshInterval().compareTo(java.time.Duration.ofSeconds(1)) < 0) {
			problems.add(new ConfigurationProblem(PATH + ".jwt.jwk-set-refresh-interval", "is shorter than 1s",
					"Write how often the signing keys are fetched again, e.g. 5m: it bounds how long a removed key is "
							+ "trusted"));
		}
		if (jwt.jwkSetRefetchCooldown().isNegative()) {
			problems.add(new ConfigurationProblem(PATH + ".jwt.jwk-set-refetch-cooldown", "is negative",
					"Write the least time between fetches caused by unknown key ids, e.g. 30s (0s: no cool-down)"));
		}
		requireScopes(PATH + ".jwt.required-scopes", jwt.requiredScopes(), problems);
		requireScopes(PATH + ".jwt.management-scopes", jwt.managementScopes(), problems);
	}

	private static void requireScopes(String path, List<String> scopes, List<ConfigurationProblem> problems) {
		for (int i = 0; i < scopes.size(); i++) {
			if (scopes.get(i) == null || scopes.get(i).isBlank() || scopes.get(i).contains(" ")) {
				problems.add(new ConfigurationProblem(path + "[" + i + "]", "is blank or holds a space",
						"Write one scope per entry, e.g. mcp"));
			}
		}
	}

	private static void requireHttpUrl(String path, String url, List<ConfigurationProblem> problems) {
		if (UnresolvedVariables.holdsVariable(url)) {
			return; // reported by UnresolvedVariables, by the variable's name
		}
		try {
			URI uri = new URI(url);
			String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
			if ((scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null) {
				return;
			}
		}
		catch (URISyntaxException ex) {
			// reported below
		}
		problems.add(new ConfigurationProblem(path, "is not an absolute http(s) URL",
				"Write e.g. https://auth.example.com/realms/mcp"));
	}

}
