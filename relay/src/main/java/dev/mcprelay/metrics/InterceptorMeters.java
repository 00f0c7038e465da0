package dev.mcprelay.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;

import dev.mcprelay.chain.InterceptorObserver;
import dev.mcprelay.chain.Verdict;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Records {@link RelayMeters#INTERCEPTOR_DURATION} and {@link RelayMeters#INTERCEPTOR_REJECTIONS}. Each meter is
 * registered once per tag combination and kept: an interceptor runs on every message, and looking a meter up in the
 * registry (building its id, sorting its tags) cost more than the interceptors themselves.
 */
@Component
class InterceptorMeters implements InterceptorObserver {

	private record Key(String stage, String interceptor, String server, Verdict.Kind result) {
	}

	private final MeterRegistry registry;

	private final Map<Key, Timer> timers = new ConcurrentHashMap<>();

	private final Map<Key, Counter> rejections = new ConcurrentHashMap<>();

	InterceptorMeters(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void observe(String stage, String interceptor, String server, Verdict.Kind result, Duration took) {
		Key key = new Key(stage, interceptor, server, result);
		timers.computeIfAbsent(key, k -> Timer.builder(RelayMeters.INTERCEPTOR_DURATION)
			.description("One interceptor's handling of one message")
			.tag(RelayMeters.SERVER, k.server())
			.tag(RelayMeters.STAGE, k.stage())
			.tag(RelayMeters.INTERCEPTOR, k.interceptor())
			.tag(RelayMeters.RESULT, k.result().name().toLowerCase(java.util.Locale.ROOT))
			.register(registry)).record(took);
		if (result == Verdict.Kind.REJECT) {
			rejections(key).increment();
		}
	}

	/**
	 * Registers the interceptor's rejections at 0 for the server, so that they are exported before the first one: a
	 * counter that appears only at its first increment shows Prometheus no increase for it, and a panel "No data".
	 */
	@Override
	public void runsFor(String stage, String interceptor, String server) {
		rejections(new Key(stage, interceptor, server, Verdict.Kind.REJECT));
	}

	private Counter rejections(Key key) {
		return rejections.computeIfAbsent(key, k -> Counter.builder(RelayMeters.INTERCEPTOR_REJECTIONS)
			.description("Messages an interceptor refused")
			.tag(RelayMeters.SERVER, k.server())
			.tag(RelayMeters.STAGE, k.stage())
			.tag(RelayMeters.INTERCEPTOR, k.interceptor())
			.register(registry));
	}

}
