package dev.mcprelay.transport;

/**
 * The one bound of the header values the relay writes itself from a request's content for an MCP 2026-07-28 server:
 * {@code Mcp-Name} (the bridge's, of a tool's or prompt's name, a resource's URI) and {@code Mcp-Param-*} (of a
 * declared argument: the bridge's for a 2025 client, or after an interceptor or {@code arguments.inject} changed the
 * argument). 2026-07-28 sets no bound of its own, while servers and gateways refuse long request headers with an HTTP
 * error of their own and no JSON-RPC answer (Node.js answers 431 past 16 KB of them all, Tomcat and nginx past 8 KB,
 * nginx with an HTML page). A request that would need a longer value is answered -32602 by the relay and not sent
 * (review 46k, K3). Names and values the MCP specification expects (tool names of at most 128 characters, region or
 * tenant arguments) are far shorter.
 */
public final class WrittenHeaderBound {

	/** The longest value the relay writes, in bytes as sent ({@code =?base64?…?=} included). */
	public static final int MAX_BYTES = 4096;

	private WrittenHeaderBound() {
	}

}
