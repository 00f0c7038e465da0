package dev.mcprelay.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DurationUnit;

/**
 * What the relay does with open streams when it shuts down, mcp-relay.shutdown. GET streams are closed at once
 * (clients reconnect, to another replica, with Last-Event-ID). POST streams, which carry answers to requests in
 * progress, get {@code stream-grace-period} to finish on their own; then they are closed too, each request still
 * unanswered getting a JSON-RPC error event (reason {@code relay_shutting_down}). JSON exchanges in flight finish
 * under Spring Boot's graceful shutdown ({@code spring.lifecycle.timeout-per-shutdown-phase}).
 *
 * @param streamGracePeriod how long POST streams may run on after shutdown begins
 */
public record ShutdownProperties(@DurationUnit(ChronoUnit.SECONDS) @DefaultValue("10s") Duration streamGracePeriod) {
}
