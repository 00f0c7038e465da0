package dev.mcprelay.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingDecision;

/** A client's sampled flag buys at most the configured traces a second beyond what the relay samples itself. */
class ClientSampledCeilingTest {

	private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

	private final AtomicLong nanos = new AtomicLong(5_000_000_000L);

	@Test
	void aRemoteSampledParentIsFollowedOnlyWhileTheSecondsBudgetLasts() {
		ClientSampledCeiling sampler = ceiling(Sampler.alwaysOff(), 2);

		assertThat(decisions(sampler, remote(true), 5)).as("two of five in one second").containsExactly(true, true,
				false, false, false);
		nanos.addAndGet(1_000_000_000L);
		assertThat(decisions(sampler, remote(true), 3)).as("the next second, two more").containsExactly(true, true,
				false);
	}

	@Test
	void whatTheRelaySamplesItselfCostsNoBudget() {
		ClientSampledCeiling sampler = ceiling(Sampler.alwaysOn(), 1);

		assertThat(decisions(sampler, remote(true), 5)).containsOnly(true);
	}

	@Test
	void otherParentsAreFollowedAsTheParentBasedSamplerFollowsThem() {
		ClientSampledCeiling sampler = ceiling(Sampler.alwaysOff(), 0);

		assertThat(decisions(sampler, remote(true), 1)).as("a budget of 0 honours no client's flag")
			.containsExactly(false);
		assertThat(decisions(sampler, remote(false), 1)).as("a remote parent that is not sampled").containsExactly(false);
		assertThat(decisions(sampler, local(true), 3)).as("the relay's own spans under a sampled one").containsOnly(true);
		assertThat(decisions(sampler, Context.root(), 1)).as("no parent: the relay's own sampler").containsExactly(false);
	}

	@Test
	void aClientCannotBuyTheRelaysOwnShareByChoosingItsTraceIds() {
		// the ratio sampler keeps a trace whose id's low 64 bits are below probability * 2^63: ...0001 always is
		List<String> crafted = new java.util.ArrayList<>();
		for (int i = 0; i < 200; i++) {
			crafted.add(String.format("%016x%016x", 4096 + i, 1));
		}
		ClientSampledCeiling sampler = new ClientSampledCeiling(Sampler.traceIdRatioBased(0.1), 0, nanos::get,
				() -> TRACE.substring(0, 16) + "7fffffffffffffff");

		assertThat(crafted).as("the relay's own share is decided by an id of its own, which it does not keep here")
			.noneMatch(traceId -> sampled(sampler, remote(traceId, true), traceId));
		ClientSampledCeiling lucky = new ClientSampledCeiling(Sampler.traceIdRatioBased(0.1), 0, nanos::get,
				() -> TRACE.substring(0, 16) + "0000000000000001");
		assertThat(crafted).as("and which it keeps here, whatever the client's id").allMatch(
				traceId -> sampled(lucky, remote(traceId, true), traceId));
	}

	private ClientSampledCeiling ceiling(Sampler own, int perSecond) {
		return new ClientSampledCeiling(own, perSecond, nanos::get, () -> TRACE);
	}

	private static boolean sampled(Sampler sampler, Context parent, String traceId) {
		return sampler.shouldSample(parent, traceId, "tools/call echo", SpanKind.SERVER, Attributes.empty(), List.of())
			.getDecision() == SamplingDecision.RECORD_AND_SAMPLE;
	}

	private static List<Boolean> decisions(Sampler sampler, Context parent, int count) {
		List<Boolean> decisions = new java.util.ArrayList<>();
		for (int i = 0; i < count; i++) {
			decisions.add(sampler.shouldSample(parent, TRACE, "tools/call echo", SpanKind.SERVER, Attributes.empty(),
					List.of()).getDecision() == SamplingDecision.RECORD_AND_SAMPLE);
		}
		return decisions;
	}

	private static Context remote(boolean sampled) {
		return remote(TRACE, sampled);
	}

	private static Context remote(String traceId, boolean sampled) {
		return Context.root().with(Span.wrap(SpanContext.createFromRemoteParent(traceId, "00f067aa0ba902b7",
				sampled ? TraceFlags.getSampled() : TraceFlags.getDefault(), TraceState.getDefault())));
	}

	private static Context local(boolean sampled) {
		return Context.root().with(Span.wrap(SpanContext.create(TRACE, "00f067aa0ba902b7",
				sampled ? TraceFlags.getSampled() : TraceFlags.getDefault(), TraceState.getDefault())));
	}

}
