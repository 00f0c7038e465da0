package dev.mcprelay.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;

import dev.mcprelay.testsupport.RelayIntegrationTest;
import io.micrometer.tracing.Tracer;
import io.prometheus.metrics.tracer.common.SpanContext;

/** With no OTLP endpoint, tracing costs a request nothing: no span is made, no exemplar is sampled. */
class TracingOffTest extends RelayIntegrationTest {

	@Autowired
	ApplicationContext context;

	@Autowired
	McpTelemetry telemetry;

	@Test
	void withoutAnEndpointNoSpanIsMadeAndNoExemplarIsSampled() {
		assertThat(telemetry.tracing()).isFalse();
		Tracer tracer = context.getBeanProvider(Tracer.class).getIfAvailable();
		if (tracer != null) {
			io.micrometer.tracing.Span span = tracer.nextSpan().start();
			assertThat(span.isNoop()).as("a span of Spring Boot's tracer (%s) records nothing", tracer).isTrue();
			span.end();
		}
		assertThat(context.getBeanProvider(SpanContext.class).getIfAvailable())
			.as("Prometheus samples an exemplar on every histogram observation when it has a span context")
			.isNull();
	}

}
