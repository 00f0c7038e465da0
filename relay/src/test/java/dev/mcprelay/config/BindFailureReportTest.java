package dev.mcprelay.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import dev.mcprelay.McpRelayApplication;

/**
 * A value of the relay's configuration that Spring Boot cannot convert to its property's type stops start-up with a
 * report that names the property, where it was set and what it takes, and never prints the value (cold review D,
 * finding 5: Spring Boot's own report printed {@code Value: "kP9xSECRETzz"}): a value written in the wrong place may
 * be a secret.
 */
@ExtendWith(OutputCaptureExtension.class)
class BindFailureReportTest {

	private static final String SECRET = "kP9xSECRETzz";

	@Test
	void anUnknownSecurityModeSetInAnEnvironmentVariableIsReportedWithoutItsValue(CapturedOutput output) {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
					new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
							Map.of("MCPRELAY_SECURITY_MODE", SECRET)));
		startFailing(environment, "--mcp-relay.servers.a.url=https://example.com/mcp");

		assertThat(output.getAll()).as("what Spring Boot printed at start-up")
			.contains("mcp-relay.security.mode (System Environment Property \"MCPRELAY_SECURITY_MODE\"): cannot be "
					+ "read as one of api-key, jwt, none")
			.doesNotContain(SECRET)
			.doesNotContain("Value:");
	}

	@Test
	void aDurationOrASizeWrittenInAFileOrOnTheCommandLineIsReportedWithoutItsValue(CapturedOutput output,
			@TempDir Path directory) throws Exception {
		Path file = directory.resolve("relay.yml");
		Files.writeString(file, "mcp-relay:\n  security:\n    mode: none\n  servers:\n    a:\n      url: "
				+ "https://example.com/mcp\n      max-buffered-body: " + SECRET + "\n");
		startFailing(new StandardEnvironment(), "--spring.config.additional-location=" + file.toUri());
		startFailing(new StandardEnvironment(), "--mcp-relay.security.mode=none",
				"--mcp-relay.servers.a.url=https://example.com/mcp",
				"--mcp-relay.servers.a.timeouts.non-streaming=" + SECRET);

		assertThat(output.getAll()).as("the file and the line; the command line")
			.contains("mcp-relay.servers.a.max-buffered-body (URL [file:" + file + "] - 7:26): cannot be read as "
					+ "a size with its unit (such as 512KB or 50MB)")
			.contains("mcp-relay.servers.a.timeouts.non-streaming (\"mcp-relay.servers.a.timeouts.non-streaming\" from "
					+ "property source \"commandLineArgs\"): cannot be read as a duration with its unit")
			.doesNotContain(SECRET)
			.doesNotContain("Value:");
	}

	private static void startFailing(StandardEnvironment environment, String... args) {
		SpringApplication application = new SpringApplication(McpRelayApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setEnvironment(environment);
		assertThatThrownBy(() -> application.run(args).close()).as("start-up fails").isNotNull();
	}

}
