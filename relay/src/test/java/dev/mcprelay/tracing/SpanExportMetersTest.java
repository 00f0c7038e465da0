package dev.mcprelay.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;

/**
 * A real batch span processor whose exporter hangs (an OTLP endpoint that stopped answering): spans that do not fit
 * its queue are dropped at once, never waited for, and counted.
 */
class SpanExportMetersTest {

	@Test
	void spansThatDoNotFitTheQueueAreDroppedAndCounted() {
		MeterRegistry registry = new SimpleMeterRegistry();
		CountDownLatch never = new CountDownLatch(1);
		SpanExporter hanging = new SpanExporter() {

			@Override
			public CompletableResultCode export(Collection<SpanData> spans) {
				return new CompletableResultCode();
			}

			@Override
			public CompletableResultCode flush() {
				return CompletableResultCode.ofSuccess();
			}

			@Override
			public CompletableResultCode shutdown() {
				never.countDown();
				return CompletableResultCode.ofSuccess();
			}

		};
		BatchSpanProcessor processor = BatchSpanProcessor.builder(hanging)
			.setMaxQueueSize(2)
			.setMaxExportBatchSize(1)
			.setScheduleDelay(Duration.ofHours(1))
			.setMeterProvider(new SpanExportMeters(registry))
			.build();
		try (SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(processor).build()) {
			Tracer tracer = provider.get("test");
			// ending a span never waits for the exporter: were it to, this loop would never end
			for (int i = 0; i < 10; i++) {
				tracer.spanBuilder("span-" + i).startSpan().end();
			}
			assertThat(registry.get(SpanExportMeters.SPANS).tag("outcome", "dropped").counter().count())
				.isGreaterThanOrEqualTo(7);
			provider.shutdown().join(1, TimeUnit.SECONDS);
		}
	}

	@Test
	void bothOutcomesAreThereFromTheStart() {
		MeterRegistry registry = new SimpleMeterRegistry();
		new SpanExportMeters(registry);

		assertThat(registry.get(SpanExportMeters.SPANS).tag("outcome", "dropped").counter().count()).isZero();
		assertThat(registry.get(SpanExportMeters.SPANS).tag("outcome", "exported").counter().count()).isZero();
	}

}
