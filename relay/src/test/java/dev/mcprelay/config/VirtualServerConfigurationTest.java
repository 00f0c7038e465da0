package dev.mcprelay.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import dev.mcprelay.virtual.VirtualServer;
import dev.mcprelay.virtual.VirtualServers;

/**
 * {@code mcp-relay.virtual-servers}: what binds, what the defaults are, and every mistake that stops start-up, named
 * by its property path.
 */
class VirtualServerConfigurationTest {

	private static final String[] SERVERS = { "--mcp-relay.servers.github.url=https://example.com/mcp",
			"--mcp-relay.servers.jira.url=https://example.com/mcp" };

	private static final String ODD_SERVER = "--mcp-relay.servers.[odd~id].url=https://example.com/mcp";

	@Test
	void membersInOrderWithTheDefaultPrefixAndOverrides() {
		String[] args = { ODD_SERVER, "--mcp-relay.virtual-servers.all.members[0]=*",
				"--mcp-relay.virtual-servers.all.prefix.[odd~id]=odd_", "--mcp-relay.virtual-servers.two.members=jira,github",
				"--mcp-relay.virtual-servers.bare.members[0]=github", "--mcp-relay.virtual-servers.bare.tool-prefix=",
				"--mcp-relay.default-server=all" };
		RelayProperties properties = bind(args);

		assertThat(validate(args)).isEmpty();
		Map<String, VirtualServer> servers = VirtualServers.resolve(properties);
		VirtualServer all = servers.get("all");
		assertThat(all.members()).as("* is every server, in configuration order").containsExactly("github", "jira", "odd~id");
		assertThat(all.prefixOf("github")).isEqualTo("github_");
		assertThat(all.prefixOf("odd~id")).isEqualTo("odd_");
		assertThat(servers.get("two").members()).containsExactly("jira", "github");
		assertThat(servers.get("bare").prefixOf("github")).isEmpty();
		assertThat(all.toolSearch().enabled()).isFalse();
	}

	@Test
	void everyMistakeIsNamedByItsPropertyPath() {
		List<ConfigurationProblem> problems = validate(ODD_SERVER,
				"--mcp-relay.virtual-servers.github.members[0]=jira",
				"--mcp-relay.virtual-servers.unknown.members[0]=github",
				"--mcp-relay.virtual-servers.unknown.members[1]=gitlab",
				"--mcp-relay.virtual-servers.twice.members[0]=jira",
				"--mcp-relay.virtual-servers.twice.members[1]=jira",
				"--mcp-relay.virtual-servers.mixed.members[0]=*",
				"--mcp-relay.virtual-servers.mixed.members[1]=jira",
				"--mcp-relay.virtual-servers.mixed.prefix.[odd~id]=odd_",
				"--mcp-relay.virtual-servers.nested.members[0]=twice",
				"--mcp-relay.virtual-servers.alphabet.members[0]=jira",
				"--mcp-relay.virtual-servers.alphabet.tool-prefix={server}/",
				"--mcp-relay.virtual-servers.tilde.members[0]=odd~id",
				"--mcp-relay.virtual-servers.long.members[0]=jira",
				"--mcp-relay.virtual-servers.long.prefix.jira=" + "x".repeat(128),
				"--mcp-relay.virtual-servers.stranger.members[0]=jira",
				"--mcp-relay.virtual-servers.stranger.prefix.github=gh_",
				"--mcp-relay.virtual-servers.search.members[0]=jira",
				"--mcp-relay.virtual-servers.search.tool-search.max-results=0",
				"--mcp-relay.virtual-servers.empty.tool-prefix=x",
				"--mcp-relay.default-server=nowhere");

		assertThat(problems).extracting(ConfigurationProblem::property).containsExactlyInAnyOrder(
				"mcp-relay.virtual-servers.github",
				"mcp-relay.virtual-servers.unknown.members[1]",
				"mcp-relay.virtual-servers.twice.members[1]",
				"mcp-relay.virtual-servers.mixed.members",
				"mcp-relay.virtual-servers.nested.members[0]",
				"mcp-relay.virtual-servers.alphabet.tool-prefix",
				"mcp-relay.virtual-servers.tilde.tool-prefix",
				"mcp-relay.virtual-servers.long.prefix.jira",
				"mcp-relay.virtual-servers.stranger.prefix.github",
				"mcp-relay.virtual-servers.search.tool-search.max-results",
				"mcp-relay.virtual-servers.empty.members",
				"mcp-relay.default-server");
		assertThat(problems).allSatisfy(problem -> assertThat(problem.fix()).isNotBlank());
	}

	@Test
	void aVirtualServerMayBeTheDefault() {
		assertThat(validate("--mcp-relay.virtual-servers.all.members[0]=*",
				"--mcp-relay.default-server=all")).isEmpty();
	}

	@Test
	void everyVirtualServerKeyIsKnown() {
		assertThat(UnknownRelayProperties.find(environment("--mcp-relay.servers.x.url=https://example.com/mcp",
				"--mcp-relay.virtual-servers.all.members[0]=*", "--mcp-relay.virtual-servers.all.tool-prefix={server}.",
				"--mcp-relay.virtual-servers.all.prefix.x=ex_", "--mcp-relay.virtual-servers.all.tool-search.enabled=true",
				"--mcp-relay.virtual-servers.all.tool-search.max-results=8"))).isEmpty();
		assertThat(UnknownRelayProperties.find(environment("--mcp-relay.virtual-servers.all.member[0]=*")))
			.extracting(ConfigurationProblem::property).containsExactly("mcp-relay.virtual-servers.all.member[0]");
	}

	private static String[] concat(String[] first, String[] second) {
		String[] all = new String[first.length + second.length];
		System.arraycopy(first, 0, all, 0, first.length);
		System.arraycopy(second, 0, all, first.length, second.length);
		return all;
	}

	private static List<ConfigurationProblem> validate(String... args) {
		return RelayPropertiesValidator.validate(bind(args), environment(args));
	}

	private static RelayProperties bind(String... args) {
		return Binder.get(environment(args)).bindOrCreate("mcp-relay", RelayProperties.class);
	}

	/** The properties in the order written, as a YAML file keeps them (configuration order decides). */
	private static StandardEnvironment environment(String... args) {
		Map<String, Object> all = new LinkedHashMap<>();
		for (String arg : concat(SERVERS, args)) {
			String property = arg.substring(2);
			all.put(property.substring(0, property.indexOf('=')), property.substring(property.indexOf('=') + 1));
		}
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new MapPropertySource("yaml", all));
		environment.getPropertySources()
			.addLast(new MapPropertySource("mode", Map.of("mcp-relay.security.mode", "none")));
		return environment;
	}

}
