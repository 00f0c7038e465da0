package dev.mcprelay.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/**
 * Records {@link RelayMeters#REQUESTS}, {@link RelayMeters#REQUEST_DURATION} and {@link RelayMeters#RESPONSE_BYTES}
 * (a virtual server's messages to its members: {@link RelayMeters#VIRTUAL_MEMBER_REQUESTS} and its two siblings),
 * registered once per series (tag combination) and kept, so that a request costs no registry lookup.
 * Histograms have a few fixed buckets rather than Micrometer's percentile histogram (about 70 buckets per series),
 * to keep the number of Prometheus series small.
 */
@Component
class RequestMeters {

	/** Duration buckets, 10 ms to 120 s. */
	static final Duration[] DURATION_BUCKETS = { Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
			Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
			Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30),
			Duration.ofSeconds(60), Duration.ofSeconds(120) };

	/** Size buckets, 1 KB to 50 MB. */
	static final double[] BYTES_BUCKETS = { kb(1), kb(4), kb(16), kb(64), kb(256), kb(1024), kb(4 * 1024),
			kb(16 * 1024), kb(50 * 1024) };

	/** The tag values of one series; every value comes from a bounded set. */
	private record Key(String server, String httpMethod, String rpcMethod, String statusClass, String outcome,
			String client, String virtualServer) {
	}

	/** The three meters of one series, registered once and kept. */
	private record Series(Counter requests, Timer duration, DistributionSummary bytes) {
	}

	private final MeterRegistry registry;

	private final Map<Key, Series> series = new ConcurrentHashMap<>();

	RequestMeters(MeterRegistry registry) {
		this.registry = registry;
	}

	void record(ExchangeRecord record) {
		Key key = new Key(record.server(), record.httpMethodTag(), record.rpcMethodTag(), record.statusClassTag(),
				record.outcome().tag(), record.clientTag(), record.virtualServerTag());
		Series meters = series.computeIfAbsent(key, this::register);
		meters.requests().increment();
		meters.duration().record(record.elapsedNanos(), TimeUnit.NANOSECONDS);
		meters.bytes().record(record.bytes());
	}

	/**
	 * Whether the series is a virtual server's messages to a member, counted under meters of their own so that
	 * {@link RelayMeters#REQUESTS} counts each client request once.
	 */
	private static boolean toMember(Key key) {
		return !ExchangeRecord.NO_VIRTUAL_SERVER.equals(key.virtualServer()) && !key.virtualServer().equals(key.server());
	}

	private Series register(Key key) {
		boolean member = toMember(key);
		Tags tags = Tags.of(RelayMeters.SERVER, key.server(), RelayMeters.HTTP_METHOD, key.httpMethod(),
				RelayMeters.RPC_METHOD, key.rpcMethod(), RelayMeters.STATUS_CLASS, key.statusClass(),
				RelayMeters.OUTCOME, key.outcome(), RelayMeters.CLIENT, key.client(), RelayMeters.VIRTUAL_SERVER,
				key.virtualServer());
		return new Series(Counter.builder(member ? RelayMeters.VIRTUAL_MEMBER_REQUESTS : RelayMeters.REQUESTS)
			.description(member ? "Messages a virtual server relayed to a member" : "Client requests relayed on /mcp/{server}")
			.tags(tags)
			.register(registry),
				Timer.builder(member ? RelayMeters.VIRTUAL_MEMBER_REQUEST_DURATION : RelayMeters.REQUEST_DURATION)
					.description("From a request's arrival until its response (or stream) ended")
					.tags(tags)
					.serviceLevelObjectives(DURATION_BUCKETS)
					.register(registry),
				DistributionSummary.builder(member ? RelayMeters.VIRTUAL_MEMBER_RESPONSE_BYTES : RelayMeters.RESPONSE_BYTES)
					.description("Body bytes the client received")
					.baseUnit("bytes")
					.tags(tags)
					.serviceLevelObjectives(BYTES_BUCKETS)
					.register(registry));
	}

	private static double kb(long kilobytes) {
		return DataSize.ofKilobytes(kilobytes).toBytes();
	}

}
