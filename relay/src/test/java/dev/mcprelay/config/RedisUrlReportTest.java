package dev.mcprelay.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.mcprelay.McpRelayApplication;

/**
 * A {@code spring.data.redis.url} that is no Redis URL stops start-up with the relay's report naming the property and
 * what is wrong, never the URL (its password: Spring Boot's report printed {@code redis://:kP9x%Secret/pw@...} whole),
 * and never a stack trace naming no property (cold review F, finding 3).
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisUrlReportTest {

	@ParameterizedTest(name = "[{index}] {1}")
	@CsvSource(delimiter = '|', value = {
			"redis://:kP9x%Secret/pw@127.0.0.1:39479|is not a URL: it holds a character that must be percent-encoded",
			"redis://:kP9x SECRET@127.0.0.1:6379|is not a URL: it holds a character that must be percent-encoded",
			"redis://:kP9xSecret/pw@127.0.0.1:6379|names no host that can be read",
			"redis://kP9xuser:kP9xSecret@127.0.0.1:63x9|names no host that can be read",
			"http://:kP9xSecret@127.0.0.1:6379|does not begin with redis:// or rediss://",
			"REDIS://:kP9xSecret@127.0.0.1:6379|does not begin with redis:// or rediss:// (in lower case)",
			"Rediss://kP9xuser:kP9xSecret@127.0.0.1:6379/0|does not begin with redis:// or rediss:// (in lower case)" })
	void aRedisUrlThatIsNoneIsReportedByItsPropertyWithoutTheUrl(String url, String problem, CapturedOutput output) {
		SpringApplication application = new SpringApplication(McpRelayApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatThrownBy(() -> application.run("--mcp-relay.security.mode=none",
				"--mcp-relay.servers.a.url=https://example.com/mcp", "--spring.data.redis.url=" + url).close())
			.as("start-up fails")
			.isNotNull();

		assertThat(output.getAll()).as("what Spring Boot printed at start-up")
			.contains("spring.data.redis.url (\"spring.data.redis.url\" from property source \"commandLineArgs\"): "
					+ problem)
			.doesNotContain("kP9x")
			.doesNotContain("\tat ");
	}

}
