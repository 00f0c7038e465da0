package dev.mcprelay.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ByteArrayResource;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.RelayPropertiesValidator;
import dev.mcprelay.config.UpstreamOAuth2Properties.UpstreamGrant;
import dev.mcprelay.testsupport.RepositoryRoot;

/**
 * The upstream OAuth2 configuration of {@code docs/servers-and-transports.md} ("Upstream tokens from an authorization server") is valid as written in
 * security mode {@code jwt}, binds each grant as the page says, and is refused in another mode (token exchange
 * needs the caller's token).
 */
class ReadmeUpstreamOAuth2ExampleTest {

	@Test
	void theReadmeConfigurationBindsAndValidatesAsDescribed() throws Exception {
		String yaml = ReadmeVirtualServerExampleTest.block(
				Files.readString(RepositoryRoot.resolve("docs/servers-and-transports.md")),
				"## Upstream tokens from an authorization server");

		RelayProperties jwt = bind(yaml, "jwt");
		assertThat(RelayPropertiesValidator.validate(jwt, environment(yaml, "jwt"))).isEmpty();
		assertThat(jwt.servers().get("github").oauth2().grant()).isEqualTo(UpstreamGrant.CLIENT_CREDENTIALS);
		assertThat(jwt.servers().get("github").oauth2().audience()).isEqualTo("https://github-mcp.example.com");
		assertThat(jwt.servers().get("jira").oauth2().grant()).isEqualTo(UpstreamGrant.TOKEN_EXCHANGE);
		assertThat(RelayPropertiesValidator.validate(bind(yaml, "none"), environment(yaml, "none")))
			.extracting(problem -> problem.property()).containsExactly("mcp-relay.servers.jira.oauth2.grant");
	}

	private static RelayProperties bind(String yaml, String mode) throws Exception {
		return Binder.get(environment(yaml, mode)).bindOrCreate("mcp-relay", RelayProperties.class);
	}

	private static StandardEnvironment environment(String yaml, String mode) throws Exception {
		StandardEnvironment environment = new StandardEnvironment();
		for (PropertySource<?> source : new YamlPropertySourceLoader().load("readme",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)))) {
			environment.getPropertySources().addFirst(source);
		}
		Map<String, Object> deployment = new java.util.HashMap<>(Map.of("GITHUB_CLIENT_SECRET", "s1",
				"JIRA_CLIENT_SECRET", "s2", "mcp-relay.security.mode", mode));
		if (mode.equals("jwt")) {
			deployment.put("mcp-relay.security.jwt.jwk-set-uri", "https://idp.example.com/jwks");
			deployment.put("mcp-relay.security.jwt.issuer", "https://idp.example.com");
		}
		environment.getPropertySources().addLast(new MapPropertySource("deployment", deployment));
		return environment;
	}

}
