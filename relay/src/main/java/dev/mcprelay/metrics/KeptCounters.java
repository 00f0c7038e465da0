package dev.mcprelay.metrics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counters registered once per name and tag values, then kept: for counts taken on a path that can run at full
 * request rate (refusals during a flood of bad keys or over a rate limit), where a registry lookup per increment
 * would cost more than the refusal. Tag values must come from bounded sets, as for every meter of the relay.
 *
 * <p>A counter whose tag values the configuration knows at start-up is {@linkplain #declare declared} then, at 0: a
 * counter that appears only at its first increment shows Prometheus no change for that first one ({@code rate()}
 * and {@code increase()} need two samples), so an alert on it would miss the first failures.
 */
public final class KeptCounters {

	private final MeterRegistry registry;

	private final Map<List<String>, Counter> counters = new ConcurrentHashMap<>();

	public KeptCounters(MeterRegistry registry) {
		this.registry = registry;
	}

	/**
	 * Adds one to counter {@code name} with these tags.
	 *
	 * @param tags tag keys and values, alternating
	 */
	public void increment(String name, String description, String... tags) {
		counter(name, description, tags).increment();
	}

	/** Registers counter {@code name} with these tags at 0, if it is not there yet. */
	public void declare(String name, String description, String... tags) {
		counter(name, description, tags);
	}

	private Counter counter(String name, String description, String... tags) {
		List<String> key = new ArrayList<>(tags.length + 1);
		key.add(name);
		key.addAll(Arrays.asList(tags));
		return counters.computeIfAbsent(key,
				k -> Counter.builder(name).description(description).tags(tags).register(registry));
	}

}
