package dev.mcprelay.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** Tracing is on exactly when an OTLP endpoint is configured; an operator's own setting wins. */
class TracingSwitchTest {

	@Test
	void withoutAnEndpointNothingIsSampledExportedOrKeptAsAnExemplar() {
		StandardEnvironment environment = environment(Map.of());

		assertThat(environment.getProperty("management.tracing.export.enabled")).isEqualTo("false");
		assertThat(environment.getProperty("management.tracing.exemplars.include")).isEqualTo("none");
		assertThat(environment.getProperty("management.tracing.sampling.probability")).isEqualTo("0.0");
		assertThat(TracingSwitch.tracingOn(environment)).isFalse();
	}

	@Test
	void anEndpointTurnsTracingOn() {
		StandardEnvironment environment = environment(Map.of(TracingSwitch.OTLP_ENDPOINT, "http://collector:4318/v1/traces"));

		assertThat(environment.getProperty("management.tracing.sampling.probability")).isNull();
		assertThat(environment.getProperty("management.tracing.exemplars.include")).isEqualTo("none");
		assertThat(TracingSwitch.tracingOn(environment)).isTrue();
	}

	@Test
	void anOperatorWhoTurnsExportOffDecides() {
		StandardEnvironment environment = environment(Map.of(TracingSwitch.OTLP_ENDPOINT, "http://collector:4318/v1/traces",
				"management.tracing.export.enabled", "false"));

		assertThat(TracingSwitch.tracingOn(environment)).isFalse();
	}

	private static StandardEnvironment environment(Map<String, Object> properties) {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
		new TracingSwitch().postProcessEnvironment(environment, new SpringApplication());
		return environment;
	}

}
