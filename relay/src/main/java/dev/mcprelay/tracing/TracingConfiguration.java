package dev.mcprelay.tracing;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.metrics.MeterProvider;

/** What the relay adds to Spring Boot's OpenTelemetry tracing: the count of spans exported and dropped. */
@Configuration(proxyBeanMethods = false)
class TracingConfiguration {

	/** Taken by Spring Boot's batch span processor ({@link SpanExportMeters}). */
	@Bean
	MeterProvider spanExportMeters(MeterRegistry registry) {
		return new SpanExportMeters(registry);
	}

}
