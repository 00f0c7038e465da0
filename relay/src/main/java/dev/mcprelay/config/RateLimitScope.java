package dev.mcprelay.config;

/**
 * Who shares one budget of a rate-limit rule, {@code mcp-relay.rate-limits[n].per}. Declared from the narrowest budget
 * to the widest: a request's rules are asked in this order, so a caller past its own limit never touches a shared one.
 */
public enum RateLimitScope {

	/** Each caller (API-key client, token subject) has a budget of its own, per server. */
	CLIENT,

	/** All callers of a server share its budget. */
	SERVER,

	/** All callers of all servers the rule matches share one budget. */
	GLOBAL

}
