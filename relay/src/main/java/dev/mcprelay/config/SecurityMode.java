package dev.mcprelay.config;

/**
 * How the relay authenticates its callers, {@code mcp-relay.security.mode}. There is no default: an operator writes
 * one of the three, {@code none} included, so that an open relay is always a decision.
 */
public enum SecurityMode {

	/** Callers present a key configured under {@code mcp-relay.security.api-keys}. */
	API_KEY,

	/** Callers present a JWT access token, validated as an OAuth 2.1 resource server does. */
	JWT,

	/** Anyone who reaches the port is served, with the configured upstream credentials. */
	NONE;

	/** The value as it is written in configuration, e.g. {@code api-key}. */
	public String configValue() {
		return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
	}

}
