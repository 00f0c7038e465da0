package dev.mcprelay.config;

import java.util.List;

/**
 * One API key the relay accepts, {@code mcp-relay.security.api-keys[n]}. The key itself is never configured: only its
 * SHA-256, so that neither the configuration nor a log can leak it.
 *
 * @param client the caller's id, for the access log, metrics ({@code client} tag) and interceptors
 * @param keySha256 the hex SHA-256 of the key (64 hex digits; e.g. {@code printf %s "$KEY" | sha256sum})
 * @param servers the server ids this key may use, or {@code *} for all; empty for a key that reads management
 * endpoints only
 * @param management whether the key may read the relay's management endpoints on the relay's port (metrics and any
 * other exposed actuator endpoint but health, which needs no credential); a key for Prometheus, say
 */
public record ApiKeyProperties(String client, String keySha256, List<String> servers, boolean management) {

	public ApiKeyProperties {
		servers = servers == null ? List.of() : List.copyOf(servers);
	}

	@Override
	public String toString() {
		return "ApiKeyProperties[client=" + client + ", keySha256=<redacted>, servers=" + servers + ", management="
				+ management + "]";
	}

}
