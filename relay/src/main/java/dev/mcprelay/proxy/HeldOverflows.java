package dev.mcprelay.proxy;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.UpstreamTransportKind;
import dev.mcprelay.metrics.RelayMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counts the times a queue of messages waiting for a client was full ({@link RelayMeters#HELD_OVERFLOWS}), per server
 * and queue, each counter registered at zero for the servers that have such a queue: {@link #RELAY_MESSAGES} for every
 * server, {@link #BRIDGE_ANSWER} and {@link #BRIDGE_STREAM} for those with {@code transport: sse}.
 */
@Component
class HeldOverflows {

	/** The relay's own notifications for a GET stream ({@link SessionStreams}). */
	static final String RELAY_MESSAGES = "relay_messages";

	/** A POST's answers on a legacy SSE session. */
	static final String BRIDGE_ANSWER = "bridge_answer";

	/** Messages for a legacy SSE session's GET stream. */
	static final String BRIDGE_STREAM = "bridge_stream";

	private final MeterRegistry registry;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	HeldOverflows(RelayProperties properties, MeterRegistry registry) {
		this.registry = registry;
		properties.servers().forEach((id, server) -> {
			counter(id, RELAY_MESSAGES);
			if (server.transport() == UpstreamTransportKind.SSE) {
				counter(id, BRIDGE_ANSWER);
				counter(id, BRIDGE_STREAM);
			}
		});
	}

	/** Counts one overflow of {@code queue} of {@code server}. */
	void overflowed(String server, String queue) {
		counter(server, queue).increment();
	}

	private Counter counter(String server, String queue) {
		return counters.computeIfAbsent(server + '\n' + queue, key -> Counter.builder(RelayMeters.HELD_OVERFLOWS)
			.description("Times a queue of messages waiting for a client was full")
			.tag(RelayMeters.SERVER, server)
			.tag(RelayMeters.QUEUE, queue)
			.register(registry));
	}

}
