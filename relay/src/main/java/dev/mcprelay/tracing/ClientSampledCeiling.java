package dev.mcprelay.tracing;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.IdGenerator;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingResult;

/**
 * A parent-based sampler whose trust in a remote parent is bounded: a span whose parent came from outside (a client's
 * {@code traceparent}, in the HTTP header or in {@code params._meta}) and asks to be sampled is sampled when the
 * relay's own sampler would sample its trace anyway, and otherwise only while this second's budget of
 * {@code mcp-relay.tracing.client-sampled-traces-per-second} lasts; past it the span is dropped, and the context the
 * relay passes upstream says so. A client that flags every message as sampled thus makes the relay record and export
 * no more than the budget beyond its own share. A remote parent that is not sampled, and local parents, are followed
 * as the parent-based sampler follows them; a span without a parent is decided by the relay's own sampler.
 *
 * <p>Whether the relay's own sampler "would sample anyway" is asked of a trace id of the relay's own (random), never
 * of the client's: the ratio sampler keeps a trace whose id's low 64 bits are small, so a client that chose its trace
 * ids ({@code ...0000000000000001}) would have every trace kept past the ceiling. The relay's share of such traces is
 * thus its sampling probability, whatever ids clients choose.
 */
final class ClientSampledCeiling implements Sampler {

	private final Sampler own;

	private final int perSecond;

	private final LongSupplier nanoTime;

	/** The trace ids the relay's own sampler decides by, for a span whose trace id a client chose. */
	private final Supplier<String> ownTraceIds;

	/** The second ({@link System#nanoTime} / 10^9) the budget is being spent in, and how much of it is spent. */
	private final AtomicLong window = new AtomicLong(Long.MIN_VALUE);

	private final AtomicLong spent = new AtomicLong();

	/**
	 * @param own the relay's own sampler for traces it starts (Spring Boot's ratio sampler)
	 * @param perSecond the traces a second a client may have sampled beyond {@code own}'s; 0 for none
	 */
	ClientSampledCeiling(Sampler own, int perSecond) {
		this(own, perSecond, System::nanoTime, IdGenerator.random()::generateTraceId);
	}

	ClientSampledCeiling(Sampler own, int perSecond, LongSupplier nanoTime, Supplier<String> ownTraceIds) {
		this.own = own;
		this.perSecond = perSecond;
		this.nanoTime = nanoTime;
		this.ownTraceIds = ownTraceIds;
	}

	@Override
	public SamplingResult shouldSample(Context parentContext, String traceId, String name, SpanKind spanKind,
			Attributes attributes, List<LinkData> parentLinks) {
		SpanContext parent = Span.fromContext(parentContext).getSpanContext();
		if (!parent.isValid()) {
			return own.shouldSample(parentContext, traceId, name, spanKind, attributes, parentLinks);
		}
		if (!parent.isSampled()) {
			return SamplingResult.drop();
		}
		if (!parent.isRemote()) {
			return SamplingResult.recordAndSample();
		}
		// decided by a trace id of the relay's own: the client chose this trace's id, and with it the ratio sampler's answer
		SamplingResult ownDecision = own.shouldSample(Context.root(), ownTraceIds.get(), name, spanKind, attributes,
				parentLinks);
		if (ownDecision.getDecision() == io.opentelemetry.sdk.trace.samplers.SamplingDecision.RECORD_AND_SAMPLE) {
			return ownDecision;
		}
		return withinBudget() ? SamplingResult.recordAndSample() : SamplingResult.drop();
	}

	/** Whether this second's budget has one trace left, now taken. */
	private boolean withinBudget() {
		if (perSecond <= 0) {
			return false;
		}
		long second = nanoTime.getAsLong() / 1_000_000_000L;
		long current = window.get();
		if (current != second && window.compareAndSet(current, second)) {
			spent.set(0);
		}
		return spent.incrementAndGet() <= perSecond;
	}

	@Override
	public String getDescription() {
		return "ClientSampledCeiling{own=" + own.getDescription() + ", clientSampledPerSecond=" + perSecond + "}";
	}

}
