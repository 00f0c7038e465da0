package dev.mcprelay.tracing;

import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * Tracing is on exactly when an OTLP endpoint is configured
 * ({@code management.opentelemetry.tracing.export.otlp.endpoint}, or its environment variable): without one, Spring
 * Boot's OpenTelemetry set-up is switched off ({@code management.opentelemetry.enabled: false}), so that no span is
 * made, sampled or kept on any request, and the relay's own spans ({@link McpTelemetry}) are not attempted; tracing
 * export is off too ({@code management.tracing.export.enabled: false}), which keeps the trace and span ids out of the
 * console's log pattern. Runs once, before the context is made, after the configuration files are read; the defaults
 * it adds are the weakest source, so an operator who sets either property decides.
 */
public class TracingSwitch implements EnvironmentPostProcessor, Ordered {

	/** Spring Boot's property for the OTLP endpoint spans are exported to. */
	public static final String OTLP_ENDPOINT = "management.opentelemetry.tracing.export.otlp.endpoint";

	static final String OPEN_TELEMETRY_ENABLED = "management.opentelemetry.enabled";

	static final String TRACING_EXPORT_ENABLED = "management.tracing.export.enabled";

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (!StringUtils.hasText(environment.getProperty(OTLP_ENDPOINT))) {
			environment.getPropertySources()
				.addLast(new MapPropertySource("mcpRelayTracingOff",
						Map.of(OPEN_TELEMETRY_ENABLED, "false", TRACING_EXPORT_ENABLED, "false")));
		}
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	/** Whether the relay traces, with this environment. */
	static boolean tracingOn(org.springframework.core.env.Environment environment) {
		return StringUtils.hasText(environment.getProperty(OTLP_ENDPOINT))
				&& environment.getProperty(OPEN_TELEMETRY_ENABLED, Boolean.class, true)
				&& environment.getProperty(TRACING_EXPORT_ENABLED, Boolean.class, true);
	}

}
