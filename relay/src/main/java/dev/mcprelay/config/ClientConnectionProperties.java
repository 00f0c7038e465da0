package dev.mcprelay.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DurationUnit;

/**
 * Bounds on the connections clients open to the relay, mcp-relay.client-connections. A client that opens a
 * connection and sends a request slowly, or never finishes it, would otherwise hold the connection (and its memory)
 * for good; one that keeps a connection open without sending anything likewise. A connection past either bound is
 * closed; an answer in progress (a stream) is never cut by them.
 *
 * @param requestReadTimeout the longest the relay waits between two reads of a request it is receiving (its
 * headers or its body); an incomplete request is closed after it
 * @param idleTimeout how long a keep-alive connection may wait for its next request
 */
public record ClientConnectionProperties(
		@DurationUnit(ChronoUnit.SECONDS) @DefaultValue("30s") Duration requestReadTimeout,
		@DurationUnit(ChronoUnit.SECONDS) @DefaultValue("120s") Duration idleTimeout) {
}
