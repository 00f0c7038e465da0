package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.StandardEnvironment;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.InvalidRelayConfigurationException;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.RelayPropertiesValidator;
import dev.mcprelay.testsupport.OwnEventLoops;

/**
 * {@code mcp-relay.security} and {@code mcp-relay.rate-limits} are checked at start-up: no mode is no start, with the
 * three choices named; each mode's settings are checked, and settings for a mode not chosen are refused; mode
 * {@code none} on an address others can reach is warned about.
 */
@ExtendWith(OutputCaptureExtension.class)
class SecurityConfigurationTest {

	private static final String HASH = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

	@Test
	void withoutAModeTheRelayDoesNotStartAndSaysWhatToWrite() {
		Throwable failure = startFailing("--mcp-relay.security.mode=", "--mcp-relay.servers.a.url=https://example.com/mcp");

		InvalidRelayConfigurationException cause = findCause(failure);
		assertThat(cause.problems()).extracting(ConfigurationProblem::property).containsExactly("mcp-relay.security.mode");
		assertThat(cause.problems().get(0).fix()).contains("api-key").contains("jwt").contains("none");
	}

	@Test
	void eachModeNeedsItsSettingsAndNoOther() {
		assertThat(problems("--mcp-relay.security.mode=api-key")).containsExactly("mcp-relay.security.api-keys");
		assertThat(problems("--mcp-relay.security.mode=api-key", "--mcp-relay.security.api-keys[0].client=a",
				"--mcp-relay.security.api-keys[0].key-sha256=the-key-itself",
				"--mcp-relay.security.api-keys[0].servers[0]=nope", "--mcp-relay.security.api-keys[1].client=a",
				"--mcp-relay.security.api-keys[1].key-sha256=" + HASH))
			.containsExactlyInAnyOrder("mcp-relay.security.api-keys[0].key-sha256",
					"mcp-relay.security.api-keys[0].servers[0]", "mcp-relay.security.api-keys[1].client",
					"mcp-relay.security.api-keys[1].servers");
		assertThat(problems("--mcp-relay.security.mode=api-key", "--mcp-relay.security.api-keys[0].client=a",
				"--mcp-relay.security.api-keys[0].key-sha256=${MCP_RELAY_TEST_UNSET_HASH}",
				"--mcp-relay.security.api-keys[0].servers[0]=*"))
			.as("an unset environment variable is named as such").containsExactly("mcp-relay.security.api-keys[0].key-sha256");
		assertThat(problems("--mcp-relay.security.mode=jwt")).containsExactly("mcp-relay.security.jwt");
		assertThat(problems("--mcp-relay.security.mode=jwt", "--mcp-relay.security.jwt.jwk-set-uri=not a url"))
			.containsExactly("mcp-relay.security.jwt.jwk-set-uri");
		assertThat(problems("--mcp-relay.security.mode=none", "--mcp-relay.security.jwt.issuer-uri=https://a.example",
				"--mcp-relay.security.api-keys[0].client=a", "--mcp-relay.security.api-keys[0].key-sha256=" + HASH,
				"--mcp-relay.servers.a.allowed-scopes[0]=x", "--mcp-relay.servers.a.headers[0].name=X-User",
				"--mcp-relay.servers.a.headers[0].from-caller-claim=sub"))
			.containsExactlyInAnyOrder("mcp-relay.security.jwt", "mcp-relay.security.api-keys",
					"mcp-relay.servers.a.allowed-scopes", "mcp-relay.servers.a.headers[0].from-caller-claim");
		assertThat(problems("--mcp-relay.security.mode=api-key", "--mcp-relay.security.api-keys[0].client=a",
				"--mcp-relay.security.api-keys[0].key-sha256=" + HASH, "--mcp-relay.security.api-keys[0].servers[0]=*",
				"--mcp-relay.servers.a.headers[0].name=X-User", "--mcp-relay.servers.a.headers[0].from-caller-claim=sub"))
			.isEmpty();
	}

	@Test
	void theFrontDoorsBoundsAreChecked() {
		String key = "--mcp-relay.security.api-keys[0].";
		assertThat(problems("--mcp-relay.security.mode=api-key", key + "client=prometheus", key + "key-sha256=" + HASH,
				key + "management=true")).as("a key for the management endpoints alone opens no server, and may").isEmpty();
		assertThat(problems("--mcp-relay.security.mode=jwt", "--mcp-relay.security.jwt.jwk-set-uri=https://a.example/jwks",
				"--mcp-relay.security.jwt.jwk-set-refresh-interval=0s",
				"--mcp-relay.security.jwt.jwk-set-refetch-cooldown=-1s",
				"--mcp-relay.security.jwt.management-scopes[0]=two words"))
			.containsExactlyInAnyOrder("mcp-relay.security.jwt.jwk-set-refresh-interval",
					"mcp-relay.security.jwt.jwk-set-refetch-cooldown", "mcp-relay.security.jwt.management-scopes[0]");
		assertThat(problems("--mcp-relay.security.mode=none", "--mcp-relay.sessions.secret=only-twenty-five-bytes-ab"))
			.as("a session secret that can be guessed offline from one signed id").containsExactly("mcp-relay.sessions.secret");
		assertThat(problems("--mcp-relay.security.mode=none",
				"--mcp-relay.sessions.secret=thirty-two-bytes-exactly-0123456")).isEmpty();
	}

	@Test
	void rateLimitRulesAreChecked() {
		assertThat(problems("--mcp-relay.security.mode=none", "--mcp-relay.rate-limits[0].limit=0",
				"--mcp-relay.rate-limits[0].period=0s", "--mcp-relay.rate-limits[0].match.server=nope",
				"--mcp-relay.rate-limits[1].name=dup", "--mcp-relay.rate-limits[1].limit=1",
				"--mcp-relay.rate-limits[1].period=1m", "--mcp-relay.rate-limits[2].name=dup",
				"--mcp-relay.rate-limits[2].limit=1", "--mcp-relay.rate-limits[2].period=1m",
				"--mcp-relay.rate-limits[2].match.tool=search_*"))
			.containsExactlyInAnyOrder("mcp-relay.rate-limits[0].limit", "mcp-relay.rate-limits[0].period",
					"mcp-relay.rate-limits[0].match.server", "mcp-relay.rate-limits[2].name");
	}

	@Test
	void modeNoneOnAReachableAddressIsWarnedAbout(CapturedOutput output) {
		SpringApplication application = new SpringApplication(McpRelayApplication.class, OwnEventLoops.class);
		application.run("--server.port=0", "--server.address=0.0.0.0", "--mcp-relay.security.mode=none").close();

		assertThat(output.getAll()).contains("mcp-relay.security.mode is none")
			.contains("anyone who can reach its port uses the configured upstream credentials");
	}

	@Test
	void modeNoneOnLoopbackIsNotWarnedAboutAndRunsNoSecurityFilter(CapturedOutput output) {
		SpringApplication application = new SpringApplication(McpRelayApplication.class, OwnEventLoops.class);
		try (var relay = application.run("--server.port=0", "--server.address=127.0.0.1",
				"--mcp-relay.security.mode=none")) {
			assertThat(relay.getBeanProvider(org.springframework.security.web.server.WebFilterChainProxy.class)
				.getIfAvailable()).as("no Spring Security filter costs a request anything").isNull();
		}

		assertThat(output.getAll()).doesNotContain("mcp-relay.security.mode is none");
	}

	private static List<String> problems(String... args) {
		String[] all = java.util.stream.Stream
			.concat(java.util.stream.Stream.of("--mcp-relay.servers.a.url=https://example.com/mcp"),
					java.util.stream.Stream.of(args))
			.toArray(String[]::new);
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new SimpleCommandLinePropertySource(all));
		RelayProperties properties = Binder.get(environment).bindOrCreate("mcp-relay", RelayProperties.class);
		return RelayPropertiesValidator.validate(properties, environment).stream().map(ConfigurationProblem::property).toList();
	}

	private static Throwable startFailing(String... args) {
		try {
			new SpringApplication(McpRelayApplication.class, OwnEventLoops.class).run(args).close();
		}
		catch (Throwable failure) {
			return failure;
		}
		throw new AssertionError("the relay started");
	}

	private static InvalidRelayConfigurationException findCause(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InvalidRelayConfigurationException invalid) {
				return invalid;
			}
		}
		throw new AssertionError("no InvalidRelayConfigurationException in", failure);
	}

}
