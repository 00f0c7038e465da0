package dev.mcprelay.config;

/**
 * What a rate-limit rule does with a request when its shared store (Redis) cannot answer the check in time,
 * {@code mcp-relay.rate-limits[n].on-store-failure}.
 */
public enum RateLimitStoreFailure {

	/** Let the request through, uncounted: an outage of Redis does not become an outage of every MCP server. */
	FAIL_OPEN,

	/** Refuse the request (503, {@code rate_limit_unavailable}): the limit holds even while it cannot be counted. */
	FAIL_CLOSED

}
