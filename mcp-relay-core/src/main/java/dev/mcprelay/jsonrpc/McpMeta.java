package dev.mcprelay.jsonrpc;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The keys MCP reserves in a message's {@code params._meta} (the {@code io.modelcontextprotocol/} prefix), and the
 * envelope a 2026-07-28 request carries there: its version, and the client's info and capabilities, which a
 * session-era client declared once in {@code initialize}. One place for every part of the relay that reads or writes
 * them (the bridge, virtual servers, the relay's own listings and probes), so that none spells a key of its own.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle">MCP 2026-07-28 lifecycle</a>
 */
public final class McpMeta {

	/** The version a 2026-07-28 request is written in. */
	public static final String PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";

	/** The client's {@code Implementation} (name, version), in a 2026-07-28 request. */
	public static final String CLIENT_INFO = "io.modelcontextprotocol/clientInfo";

	/** The client's capabilities, in a 2026-07-28 request. */
	public static final String CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

	/** The level of log messages the client wants, in a 2026-07-28 request. */
	public static final String LOG_LEVEL = "io.modelcontextprotocol/logLevel";

	/** The server's {@code Implementation}, in a 2026-07-28 result. */
	public static final String SERVER_INFO = "io.modelcontextprotocol/serverInfo";

	/** The subscription a 2026-07-28 notification on a {@code subscriptions/listen} stream belongs to. */
	public static final String SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

	private McpMeta() {
	}

	/**
	 * Writes into {@code request} (a JSON-RPC request the relay makes itself, changed in place) the envelope of a
	 * 2026-07-28 request in {@code version}: the relay as the client, named {@code mcp-relay} at version
	 * {@code purpose} (what the request is for: {@code listing}, {@code probe}), declaring no capability. Keys already in
	 * its {@code _meta} are kept, the envelope's replace any of the same name.
	 */
	public static ObjectNode relaysOwnEnvelope(ObjectNode request, String version, String purpose) {
		ObjectNode params = request.get("params") instanceof ObjectNode given ? given : request.putObject("params");
		ObjectNode meta = params.get("_meta") instanceof ObjectNode given ? given : params.putObject("_meta");
		meta.put(PROTOCOL_VERSION, version);
		meta.putObject(CLIENT_INFO).put("name", "mcp-relay").put("version", purpose);
		meta.putObject(CLIENT_CAPABILITIES);
		return request;
	}

}
