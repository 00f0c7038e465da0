package dev.mcprelay.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DurationUnit;

/**
 * One rate-limit rule, {@code mcp-relay.rate-limits[n]}: at most {@code limit} requests per {@code period}, refilled
 * gradually, for the requests it matches, counted {@code per} client, server or globally.
 *
 * @param name the rule's name in metrics and errors; default {@code rule-<n>}
 * @param match which requests count
 * @param per who shares one budget
 * @param limit requests allowed per period
 * @param period the period the limit refills over
 * @param onStoreFailure what to do with a request when the shared store (Redis) cannot answer its check:
 * {@code fail-open} (the default) lets it through, {@code fail-closed} refuses it with 503
 */
public record RateLimitProperties(
		String name,
		@DefaultValue RateLimitMatch match,
		@DefaultValue("client") RateLimitScope per,
		long limit,
		@DurationUnit(ChronoUnit.SECONDS) Duration period,
		@DefaultValue("fail-open") RateLimitStoreFailure onStoreFailure) {

	/** The rule's name in metrics, errors and bucket keys: its configured name, else {@code rule-<index>}. */
	public String nameOr(int index) {
		return name == null || name.isBlank() ? "rule-" + index : name;
	}

	/**
	 * What a rule counts: JSON-RPC requests to servers matching {@code server}, and, when {@code tool} is set, only
	 * {@code tools/call} requests of tools matching it. Both are names or globs with {@code *}.
	 *
	 * @param server the servers; default all
	 * @param tool the tools; unset, every request counts
	 */
	public record RateLimitMatch(@DefaultValue("*") String server, String tool) {
	}

}
