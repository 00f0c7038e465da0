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
 * ({@code management.opentelemetry.tracing.export.otlp.endpoint}, or its environment variable). Without one the relay
 * makes no span of its own ({@link McpTelemetry}), and this sets two defaults so that nothing else costs a request
 * anything: Spring Boot's tracer, which it makes all the same for the observations it keeps (the actuator's), samples
 * nothing ({@code management.tracing.sampling.probability: 0.0}); and tracing export is off
 * ({@code management.tracing.export.enabled: false}), which also keeps blank trace and span ids out of the console's
 * log pattern. Turning Boot's OpenTelemetry off instead ({@code management.opentelemetry.enabled: false}) would be
 * worse: Boot then makes a tracer that records every span and sends it nowhere. With an endpoint or without,
 * Prometheus keeps no exemplars unless asked ({@code management.tracing.exemplars.include: none}): its exemplar sampler
 * runs on every histogram observation, about 1-2% of a request's CPU, for a link few scrapes use. With an endpoint, no
 * span attribute (any span's, event attributes too) keeps more than 1,024 characters
 * ({@code management.opentelemetry.tracing.limits.max-attribute-value-length}), beside the relay's own 128-character
 * bound on what it takes from messages ({@link TelemetryText}). Runs once, before
 * the context is made, after the configuration files are read; the defaults are the weakest source, so an operator
 * who sets any of them decides.
 */
public class TracingSwitch implements EnvironmentPostProcessor, Ordered {

	/** Spring Boot's property for the OTLP endpoint spans are exported to. */
	public static final String OTLP_ENDPOINT = "management.opentelemetry.tracing.export.otlp.endpoint";

	static final String OPEN_TELEMETRY_ENABLED = "management.opentelemetry.enabled";

	static final String TRACING_EXPORT_ENABLED = "management.tracing.export.enabled";

	/** The share of traces started here that are kept. */
	static final String SAMPLING = "management.tracing.sampling.probability";

	/** Which traces Prometheus histograms keep exemplars of. */
	static final String EXEMPLARS = "management.tracing.exemplars.include";

	/** The longest attribute value (or event attribute) a span keeps; the rest is cut off by the SDK. */
	static final String MAX_ATTRIBUTE_LENGTH = "management.opentelemetry.tracing.limits.max-attribute-value-length";

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		Map<String, Object> defaults = StringUtils.hasText(environment.getProperty(OTLP_ENDPOINT))
				? Map.of(EXEMPLARS, "none", MAX_ATTRIBUTE_LENGTH, "1024")
				: Map.of(TRACING_EXPORT_ENABLED, "false", SAMPLING, "0.0", EXEMPLARS, "none");
		environment.getPropertySources().addLast(new MapPropertySource("mcpRelayTracingDefaults", defaults));
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
