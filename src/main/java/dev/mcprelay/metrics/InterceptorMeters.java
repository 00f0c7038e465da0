package dev.mcprelay.metrics;

import java.time.Duration;

import org.springframework.stereotype.Component;

import dev.mcprelay.intercept.InterceptorObserver;
import dev.mcprelay.intercept.Verdict;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/** Records {@link RelayMeters#INTERCEPTOR_DURATION} and {@link RelayMeters#INTERCEPTOR_REJECTIONS}. */
@Component
class InterceptorMeters implements InterceptorObserver {

	private final MeterRegistry registry;

	InterceptorMeters(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void observe(String stage, String interceptor, String server, Verdict.Kind result, Duration took) {
		Timer.builder(RelayMeters.INTERCEPTOR_DURATION)
			.description("One interceptor's handling of one message")
			.tag(RelayMeters.SERVER, server)
			.tag(RelayMeters.STAGE, stage)
			.tag(RelayMeters.INTERCEPTOR, interceptor)
			.tag(RelayMeters.RESULT, result.name().toLowerCase())
			.register(registry)
			.record(took);
		if (result == Verdict.Kind.REJECT) {
			Counter.builder(RelayMeters.INTERCEPTOR_REJECTIONS)
				.description("Messages an interceptor refused")
				.tag(RelayMeters.SERVER, server)
				.tag(RelayMeters.STAGE, stage)
				.tag(RelayMeters.INTERCEPTOR, interceptor)
				.register(registry)
				.increment();
		}
	}

}
