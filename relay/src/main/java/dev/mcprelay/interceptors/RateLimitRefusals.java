package dev.mcprelay.interceptors;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import io.github.bucket4j.ConsumptionProbe;

/**
 * What a client is answered when a rate-limit rule refuses its request ({@link RateLimitPolicy}): JSON-RPC error
 * -32000 whose {@code data} says the reason, the rule and {@code retryAfterSeconds}, with the HTTP status and
 * {@code Retry-After} the whole answer takes when it is the only one.
 */
final class RateLimitRefusals {

	private RateLimitRefusals() {
	}

	/** The refusal of a {@code fail-closed} rule whose store cannot answer: 503, try again in a second. */
	static RejectError unavailable(RateLimitRule rule) {
		return new RejectError(JsonRpcErrorCodes.POLICY_REJECTED,
				"The rate limit (" + rule.description() + ") cannot be checked right now, and it does not let requests "
						+ "through unchecked: try again shortly.",
				data("rate_limit_unavailable", rule, 1))
			.withHttpStatus(503, Duration.ofSeconds(1));
	}

	/** The refusal of a request {@code rule} has no token for: 429, with when the next one is there. */
	static RejectError exhausted(RateLimitRule rule, ConsumptionProbe probe) {
		Duration wait = Duration.ofNanos(probe.getNanosToWaitForRefill());
		long seconds = RejectError.retryAfterSeconds(wait);
		return new RejectError(JsonRpcErrorCodes.POLICY_REJECTED,
				"Rate limit exceeded (" + rule.description() + "): try again in " + seconds + "s.",
				data("rate_limited", rule, seconds))
			.withHttpStatus(429, wait);
	}

	/**
	 * A refusal's {@code error.data}: {@code reason}, {@code rule}, {@code retryAfterSeconds}, in that order on every
	 * replica (a {@code Map.of} is written in an order that changes from one JVM to the next).
	 */
	private static Map<String, Object> data(String reason, RateLimitRule rule, long retryAfterSeconds) {
		Map<String, Object> data = new LinkedHashMap<>();
		data.put("reason", reason);
		data.put("rule", rule.name());
		data.put("retryAfterSeconds", retryAfterSeconds);
		return data;
	}

}
