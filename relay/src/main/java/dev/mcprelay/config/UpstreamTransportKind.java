package dev.mcprelay.config;

/** What an upstream speaks, {@code mcp-relay.servers.<id>.transport}; the client always speaks Streamable HTTP. */
public enum UpstreamTransportKind {

	/** MCP's Streamable HTTP (2025-03-26 and later): each client request is relayed as one HTTP exchange. */
	STREAMABLE_HTTP,

	/**
	 * The 2024-11-05 HTTP+SSE transport (older servers, mcp-hub): {@code url} is the event stream the relay opens with
	 * a GET per session; its {@code endpoint} event names where client messages are POSTed, and every answer comes
	 * back on the stream.
	 */
	SSE

}
