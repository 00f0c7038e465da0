package dev.mcprelay.metrics;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/** Records {@link RelayMeters#REQUESTS}, {@link RelayMeters#REQUEST_DURATION} and {@link RelayMeters#RESPONSE_BYTES}. */
@Component
class RequestMeters {

	private final MeterRegistry registry;

	RequestMeters(MeterRegistry registry) {
		this.registry = registry;
	}

	void record(ExchangeRecord record) {
		Tags tags = Tags.of(RelayMeters.SERVER, record.server(), RelayMeters.HTTP_METHOD, record.httpMethodTag(),
				RelayMeters.RPC_METHOD, record.rpcMethodTag(), RelayMeters.STATUS_CLASS, record.statusClassTag(),
				RelayMeters.OUTCOME, record.outcome().tag());
		Counter.builder(RelayMeters.REQUESTS)
			.description("Client requests relayed on /mcp/{server}")
			.tags(tags)
			.register(registry)
			.increment();
		Timer.builder(RelayMeters.REQUEST_DURATION)
			.description("From a request's arrival until its response (or stream) ended")
			.tags(tags)
			.publishPercentileHistogram()
			.minimumExpectedValue(Duration.ofMillis(10))
			.maximumExpectedValue(Duration.ofSeconds(120))
			.register(registry)
			.record(record.elapsedNanos(), TimeUnit.NANOSECONDS);
		DistributionSummary.builder(RelayMeters.RESPONSE_BYTES)
			.description("Body bytes the client received")
			.baseUnit("bytes")
			.tags(tags)
			.publishPercentileHistogram()
			.minimumExpectedValue((double) DataSize.ofKilobytes(1).toBytes())
			.maximumExpectedValue((double) DataSize.ofMegabytes(50).toBytes())
			.register(registry)
			.record(record.bytes());
	}

}
