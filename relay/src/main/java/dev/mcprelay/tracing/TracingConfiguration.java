package dev.mcprelay.tracing;

import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingProperties;
import org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.SpanExporters;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;

/** What the relay changes in Spring Boot's OpenTelemetry tracing: how spans get to the exporter, and their count. */
@Configuration(proxyBeanMethods = false)
class TracingConfiguration {

	/** Taken by the batch span processor ({@link SpanExportMeters}). */
	@Bean
	MeterProvider spanExportMeters(MeterRegistry registry) {
		return new SpanExportMeters(registry);
	}

	/**
	 * The batch span processor, in place of Spring Boot's, made from the same properties
	 * ({@code management.opentelemetry.tracing.export.*}: queue and batch sizes, delay, timeout, unsampled spans) and
	 * handing spans to the exporters (OTLP) as they are. Spring Boot's wraps every finished span in Micrometer's
	 * exporting chain, which copies the span's attributes into a map and back for span filters, predicates and
	 * reporters the relay has none of: with every message sampled, that copy was the largest single cost on the export
	 * threads in a JFR profile. The processor counts what it exports and drops ({@link SpanExportMeters}).
	 */
	@Bean
	BatchSpanProcessor relaySpanProcessor(ObjectProvider<SpanExporters> exporters,
			ObjectProvider<OpenTelemetryTracingProperties> properties, MeterProvider spanExportMeters) {
		OpenTelemetryTracingProperties.Export export = properties.getIfAvailable(OpenTelemetryTracingProperties::new)
			.getExport();
		List<SpanExporter> all = exporters.getIfAvailable(SpanExporters::of).list();
		return BatchSpanProcessor.builder(SpanExporter.composite(all))
			.setExportUnsampledSpans(export.isIncludeUnsampled())
			.setExporterTimeout(export.getTimeout())
			.setMaxExportBatchSize(export.getMaxBatchSize())
			.setMaxQueueSize(export.getMaxQueueSize())
			.setScheduleDelay(export.getScheduleDelay())
			.setMeterProvider(spanExportMeters)
			.build();
	}

}
