package dev.mcprelay.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.test.util.ReflectionTestUtils;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.OwnEventLoops;

/**
 * The relay's own event-loop factory replaces Spring Boot's, and still takes Boot's setting for it: the quiet period
 * the loops wait for at shutdown. (The tests' own application.properties sets it to 0; a command-line argument, as an
 * operator would pass one, comes first.)
 */
class ReactorNettyShutdownTest {

	@Test
	void theShutdownQuietPeriodIsSpringBootsSetting() {
		assertThat(quietPeriodWith("spring.reactor.netty.shutdown-quiet-period=250ms"))
			.isEqualTo(Duration.ofMillis(250));
	}

	@Test
	void unsetItIsReactorNettysDefault() {
		assertThat(quietPeriodWith("spring.reactor.netty.shutdown-quiet-period=")).isEqualTo(Duration.ofSeconds(2));
	}

	private static Object quietPeriodWith(String setting) {
		try (ConfigurableApplicationContext relay = new SpringApplicationBuilder(McpRelayApplication.class,
				OwnEventLoops.class)
			.properties("server.port=0", "mcp-relay.servers.any.url=http://127.0.0.1:9/mcp")
			.run("--" + setting)) {
			ReactorResourceFactory resources = relay.getBean(ReactorResourceFactory.class);
			return ReflectionTestUtils.getField(resources, "shutdownQuietPeriod");
		}
	}

}
