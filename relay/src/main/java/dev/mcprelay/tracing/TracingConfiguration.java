package dev.mcprelay.tracing;

import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingProperties;
import org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.SpanExporters;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import dev.mcprelay.config.RelayProperties;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;

/**
 * What the relay changes in Spring Boot's OpenTelemetry tracing: how spans get to the exporter, their count, and how
 * far a client's sampled flag is followed.
 */
@Configuration(proxyBeanMethods = false)
class TracingConfiguration {

	/**
	 * Spring Boot's sampler ({@code management.opentelemetry.tracing.sampler},
	 * {@code management.tracing.sampling.probability}), with the parent-based kinds' trust in a remote parent bounded by
	 * {@code mcp-relay.tracing.client-sampled-traces-per-second} ({@link ClientSampledCeiling}); with tracing off
	 * ({@link TracingSwitch}), a client's flag is followed not at all. The kinds that ignore parents are Boot's own.
	 */
	@Bean
	Sampler relaySampler(ObjectProvider<OpenTelemetryTracingProperties> openTelemetry,
			ObjectProvider<org.springframework.boot.micrometer.tracing.autoconfigure.TracingProperties> tracing,
			RelayProperties relay, Environment environment) {
		double probability = tracing
			.getIfAvailable(org.springframework.boot.micrometer.tracing.autoconfigure.TracingProperties::new)
			.getSampling()
			.getProbability();
		int perSecond = TracingSwitch.tracingOn(environment) ? relay.tracing().clientSampledTracesPerSecond() : 0;
		return switch (openTelemetry.getIfAvailable(OpenTelemetryTracingProperties::new).getSampler()) {
			case ALWAYS_ON -> Sampler.alwaysOn();
			case ALWAYS_OFF -> Sampler.alwaysOff();
			case TRACE_ID_RATIO -> Sampler.traceIdRatioBased(probability);
			case PARENT_BASED_ALWAYS_ON -> new ClientSampledCeiling(Sampler.alwaysOn(), perSecond);
			case PARENT_BASED_ALWAYS_OFF -> new ClientSampledCeiling(Sampler.alwaysOff(), perSecond);
			case PARENT_BASED_TRACE_ID_RATIO -> new ClientSampledCeiling(Sampler.traceIdRatioBased(probability),
					perSecond);
		};
	}

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
