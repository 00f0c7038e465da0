package dev.mcprelay.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** {@code servers.<id>.oauth2}: every mistake named by its property path, and the secret never shown. */
class UpstreamOAuth2ConfigurationTest {

	private static final String SECRET = "oauth2-client-secret-81b3";

	@Test
	void everyMistakeIsNamedByItsPropertyPathAndTheSecretIsNeverShown() {
		List<ConfigurationProblem> problems = validate(properties(
				"mcp-relay.servers.both.url", "https://example.com/mcp",
				"mcp-relay.servers.both.authorization", "Bearer static",
				"mcp-relay.servers.both.oauth2.token-uri", "https://idp.example.com/oauth2/token",
				"mcp-relay.servers.both.oauth2.client-id", "relay",
				"mcp-relay.servers.both.oauth2.client-secret", SECRET,
				"mcp-relay.servers.bare.url", "https://example.com/mcp",
				"mcp-relay.servers.bare.oauth2.token-uri", "idp.example.com/token",
				"mcp-relay.servers.exchange.url", "https://example.com/mcp",
				"mcp-relay.servers.exchange.oauth2.grant", "token-exchange",
				"mcp-relay.servers.exchange.oauth2.token-uri", "https://idp.example.com/oauth2/token",
				"mcp-relay.servers.keyed.url", "https://example.com/mcp",
				"mcp-relay.servers.keyed.oauth2.token-uri", "https://idp.example.com/oauth2/token",
				"mcp-relay.servers.keyed.oauth2.client-id", "relay",
				"mcp-relay.servers.keyed.oauth2.private-key", "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----"));
		List<ConfigurationProblem> exchangeProblems = problems.stream()
			.filter(problem -> problem.property().startsWith("mcp-relay.servers.exchange")).toList();

		assertThat(problems).extracting(ConfigurationProblem::property).contains(
				"mcp-relay.servers.both.authorization",
				"mcp-relay.servers.bare.oauth2.token-uri",
				"mcp-relay.servers.bare.oauth2.client-id",
				"mcp-relay.servers.bare.oauth2.client-secret",
				"mcp-relay.servers.exchange.oauth2.grant",
				"mcp-relay.servers.keyed.oauth2.private-key");
		assertThat(exchangeProblems).extracting(ConfigurationProblem::property).contains(
				"mcp-relay.servers.exchange.oauth2.client-id", "mcp-relay.servers.exchange.oauth2.grant");
		assertThat(problems).allSatisfy(problem -> assertThat(problem.toString()).doesNotContain(SECRET));
		assertThat(bind(Map.of("mcp-relay.servers.both.url", "https://example.com/mcp",
				"mcp-relay.servers.both.oauth2.client-secret", SECRET)).toString()).doesNotContain(SECRET);
	}

	@Test
	void aCompleteClientCredentialsServerIsValid() {
		assertThat(validate(Map.of(
				"mcp-relay.servers.github.url", "https://example.com/mcp",
				"mcp-relay.servers.github.oauth2.token-uri", "https://idp.example.com/oauth2/token",
				"mcp-relay.servers.github.oauth2.client-id", "relay",
				"mcp-relay.servers.github.oauth2.client-secret", SECRET,
				"mcp-relay.servers.github.oauth2.scopes[0]", "mcp.read",
				"mcp-relay.servers.github.oauth2.audience", "https://github-mcp.example.com"))).isEmpty();
	}

	private static Map<String, Object> properties(String... namesAndValues) {
		Map<String, Object> properties = new LinkedHashMap<>();
		for (int i = 0; i < namesAndValues.length; i += 2) {
			properties.put(namesAndValues[i], namesAndValues[i + 1]);
		}
		return properties;
	}

	private static List<ConfigurationProblem> validate(Map<String, Object> properties) {
		return RelayPropertiesValidator.validate(bind(properties), environment(properties));
	}

	private static RelayProperties bind(Map<String, Object> properties) {
		return Binder.get(environment(properties)).bindOrCreate("mcp-relay", RelayProperties.class);
	}

	private static StandardEnvironment environment(Map<String, Object> properties) {
		Map<String, Object> all = new LinkedHashMap<>(properties);
		all.put("mcp-relay.security.mode", "none");
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new MapPropertySource("test", all));
		return environment;
	}

}
