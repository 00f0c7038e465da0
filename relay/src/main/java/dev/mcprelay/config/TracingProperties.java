package dev.mcprelay.config;

import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * What the relay bounds of tracing, {@code mcp-relay.tracing}, beside Spring Boot's own {@code management.tracing.*}
 * (whether to trace, the sampling probability, the OTLP endpoint).
 *
 * @param clientSampledTracesPerSecond the most traces a second the relay keeps because a client's trace context asked
 * for it (the sampled flag of its {@code traceparent}, in the HTTP header or in {@code params._meta}) beyond those
 * {@code management.tracing.sampling.probability} keeps anyway: a client that flags every message as sampled makes
 * the relay record and export no more than this. 0 honours no client's flag
 */
public record TracingProperties(@DefaultValue("10") int clientSampledTracesPerSecond) {

	/** The defaults, for a tree made without binding. */
	static final TracingProperties DEFAULTS = new TracingProperties(10);

}
