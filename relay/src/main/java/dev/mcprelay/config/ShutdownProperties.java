package dev.mcprelay.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DurationUnit;

/**
 * What the relay does with what it carries when it shuts down, mcp-relay.shutdown. GET streams are closed at once
 * (clients reconnect, to another replica, with Last-Event-ID). POSTs and DELETEs in flight, which carry answers to
 * requests in progress, get {@code stream-grace-period} to finish on their own, whether their upstream's answer has
 * begun or not; then what is left is cut, each request still unanswered getting a JSON-RPC error (an event on a
 * stream, the answer otherwise; reason {@code relay_shutting_down}). Spring Boot's graceful shutdown
 * ({@code spring.lifecycle.timeout-per-shutdown-phase}) then waits for those answers to be written.
 *
 * @param streamGracePeriod how long POSTs and DELETEs in flight may run on after shutdown begins
 */
public record ShutdownProperties(@DurationUnit(ChronoUnit.SECONDS) @DefaultValue("10s") Duration streamGracePeriod) {
}
