package dev.mcprelay.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DurationUnit;

/**
 * The pool of connections to upstream servers, mcp-relay.connection-pool. Each open SSE stream holds one
 * connection for its whole life, so the pool is sized for long-lived streams, not for short requests.
 *
 * @param maxConnections connections per upstream host and port
 * @param maxIdleTime an idle pooled connection older than this is closed instead of reused, so that a connection
 * the upstream already closed is not picked for a new request
 */
public record ConnectionPoolProperties(
		@DefaultValue("2000") int maxConnections,
		@DurationUnit(ChronoUnit.SECONDS) @DefaultValue("30s") Duration maxIdleTime) {
}
