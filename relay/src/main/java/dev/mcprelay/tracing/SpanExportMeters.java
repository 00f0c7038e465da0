package dev.mcprelay.tracing;

import java.util.function.Consumer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleCounterBuilder;
import io.opentelemetry.api.metrics.DoubleGaugeBuilder;
import io.opentelemetry.api.metrics.DoubleHistogramBuilder;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongCounterBuilder;
import io.opentelemetry.api.metrics.LongUpDownCounterBuilder;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.MeterBuilder;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.metrics.ObservableLongCounter;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import io.opentelemetry.context.Context;

/**
 * The OpenTelemetry meter provider Spring Boot hands its batch span processor: the spans the processor exports and
 * the spans it drops because its queue is full ({@code management.opentelemetry.tracing.export.max-queue-size}: the
 * OTLP endpoint is slow or down, and spans are never waited for on a request's path) become the counter
 * {@value #SPANS}{@code {outcome="exported"|"dropped"}}, registered at 0. Every other instrument anyone asks it for
 * records nothing.
 */
final class SpanExportMeters implements MeterProvider {

	static final String SPANS = "mcp.relay.tracing.spans";

	/** The batch span processor's counter, with its {@code dropped} attribute. */
	private static final String PROCESSED_SPANS = "processedSpans";

	private static final AttributeKey<Boolean> DROPPED = AttributeKey.booleanKey("dropped");

	private static final MeterProvider NOTHING = MeterProvider.noop();

	private final Counter exported;

	private final Counter dropped;

	SpanExportMeters(MeterRegistry registry) {
		this.exported = counter(registry, "exported");
		this.dropped = counter(registry, "dropped");
	}

	private static Counter counter(MeterRegistry registry, String outcome) {
		return Counter.builder(SPANS)
			.description("Spans handed to the OTLP exporter, or dropped because its queue was full")
			.tag("outcome", outcome)
			.register(registry);
	}

	@Override
	public MeterBuilder meterBuilder(String instrumentationScopeName) {
		MeterBuilder nothing = NOTHING.meterBuilder(instrumentationScopeName);
		return new MeterBuilder() {

			@Override
			public MeterBuilder setSchemaUrl(String schemaUrl) {
				return this;
			}

			@Override
			public MeterBuilder setInstrumentationVersion(String version) {
				return this;
			}

			@Override
			public Meter build() {
				return new SpanCountingMeter(nothing.build());
			}

		};
	}

	/** A meter whose {@code processedSpans} counter counts; everything else is {@code nothing}'s. */
	private final class SpanCountingMeter implements Meter {

		private final Meter nothing;

		SpanCountingMeter(Meter nothing) {
			this.nothing = nothing;
		}

		@Override
		public LongCounterBuilder counterBuilder(String name) {
			return PROCESSED_SPANS.equals(name) ? new ProcessedSpans(nothing.counterBuilder(name))
					: nothing.counterBuilder(name);
		}

		@Override
		public LongUpDownCounterBuilder upDownCounterBuilder(String name) {
			return nothing.upDownCounterBuilder(name);
		}

		@Override
		public DoubleHistogramBuilder histogramBuilder(String name) {
			return nothing.histogramBuilder(name);
		}

		@Override
		public DoubleGaugeBuilder gaugeBuilder(String name) {
			return nothing.gaugeBuilder(name);
		}

	}

	private final class ProcessedSpans implements LongCounterBuilder, LongCounter {

		private final LongCounterBuilder nothing;

		ProcessedSpans(LongCounterBuilder nothing) {
			this.nothing = nothing;
		}

		@Override
		public LongCounterBuilder setDescription(String description) {
			return this;
		}

		@Override
		public LongCounterBuilder setUnit(String unit) {
			return this;
		}

		@Override
		public DoubleCounterBuilder ofDoubles() {
			return nothing.ofDoubles();
		}

		@Override
		public LongCounter build() {
			return this;
		}

		@Override
		public ObservableLongCounter buildWithCallback(Consumer<ObservableLongMeasurement> callback) {
			return nothing.buildWithCallback(callback);
		}

		@Override
		public void add(long value) {
			exported.increment(value);
		}

		@Override
		public void add(long value, Attributes attributes) {
			(Boolean.TRUE.equals(attributes.get(DROPPED)) ? dropped : exported).increment(value);
		}

		@Override
		public void add(long value, Attributes attributes, Context context) {
			add(value, attributes);
		}

	}

}
