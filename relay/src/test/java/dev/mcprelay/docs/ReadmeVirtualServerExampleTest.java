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
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.McpRouting;
import dev.mcprelay.testsupport.RepositoryRoot;
import dev.mcprelay.virtual.VirtualServer;
import dev.mcprelay.virtual.VirtualServers;

/**
 * The virtual-server configuration of {@code docs/virtual-servers.md} is valid as written and means what the
 * page says: three members in order, the default prefix and one member's own, and {@code /mcp} serving the
 * composition.
 */
class ReadmeVirtualServerExampleTest {

	@Test
	void theReadmeConfigurationBindsValidatesAndComposesAsDescribed() throws Exception {
		String yaml = block(Files.readString(RepositoryRoot.resolve("docs/virtual-servers.md")),
				"# Virtual servers: one endpoint for many servers");
		StandardEnvironment environment = new StandardEnvironment();
		for (PropertySource<?> source : new YamlPropertySourceLoader().load("readme",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)))) {
			environment.getPropertySources().addFirst(source);
		}
		environment.getPropertySources().addLast(new MapPropertySource("deployment",
				Map.of("GITHUB_TOKEN", "ghp-example", "mcp-relay.security.mode", "none")));
		RelayProperties properties = Binder.get(environment).bindOrCreate("mcp-relay", RelayProperties.class);

		assertThat(RelayPropertiesValidator.validate(properties, environment)).isEmpty();
		VirtualServer all = VirtualServers.resolve(properties).get("all");
		assertThat(all.members()).containsExactly("github", "jira", "internal-tools");
		assertThat(all.prefixOf("github")).isEqualTo("github_");
		assertThat(all.prefixOf("internal-tools")).isEqualTo("int_");
		assertThat(all.toolSearch().maxResults()).isEqualTo(8);
		McpRouting routing = new McpRouting(environment, null);
		McpRoute root = routing.resolve(
				new dev.mcprelay.live.LiveConfiguration(properties, environment, java.util.List.of(routing)).current(), "/mcp");
		assertThat(root.kind()).isEqualTo(McpRoute.Kind.VIRTUAL);
		assertThat(root.virtualServer()).isEqualTo("all");
	}

	/** The first {@code yaml} block after {@code heading}. */
	static String block(String readme, String heading) {
		int at = readme.indexOf(heading);
		assertThat(at).as("the page has the section " + heading).isNotNegative();
		int start = readme.indexOf("```yaml\n", at) + "```yaml\n".length();
		return readme.substring(start, readme.indexOf("```", start));
	}

}
