package dev.mcprelay.tracing;

/**
 * The attribute names of the relay's spans and of its {@code mcp.*.operation.duration} histograms: those of the
 * OpenTelemetry semantic conventions for MCP (development status), and the relay's own under {@code mcp_relay.},
 * named as the tags of its {@code mcp_relay_*} meters.
 *
 * @see <a href="https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/">Semantic conventions for MCP</a>
 */
final class McpAttributes {

	static final String METHOD_NAME = "mcp.method.name";

	static final String SESSION_ID = "mcp.session.id";

	static final String PROTOCOL_VERSION = "mcp.protocol.version";

	static final String RESOURCE_URI = "mcp.resource.uri";

	static final String REQUEST_ID = "jsonrpc.request.id";

	static final String TOOL_NAME = "gen_ai.tool.name";

	static final String PROMPT_NAME = "gen_ai.prompt.name";

	static final String OPERATION_NAME = "gen_ai.operation.name";

	static final String ERROR_TYPE = "error.type";

	static final String RESPONSE_STATUS_CODE = "rpc.response.status_code";

	static final String NETWORK_TRANSPORT = "network.transport";

	static final String NETWORK_PROTOCOL_NAME = "network.protocol.name";

	static final String SERVER_ADDRESS = "server.address";

	static final String SERVER_PORT = "server.port";

	/** The configured server the message is for. */
	static final String RELAY_SERVER = "mcp_relay.server";

	/** The virtual server the message came through, where there is one. */
	static final String RELAY_VIRTUAL_SERVER = "mcp_relay.virtual_server";

	/** The caller's id (an API key's client, a token's client claim), never a credential. */
	static final String RELAY_CLIENT = "mcp_relay.client";

	/** On an interceptor span: the stage whose chain ran. */
	static final String INTERCEPTOR_STAGE = "mcp_relay.interceptor.stage";

	/** On an interceptor span: the interceptor that rejected, answered or changed the message. */
	static final String INTERCEPTOR_NAME = "mcp_relay.interceptor.name";

	/** On an interceptor span that refused: the reason the access log gives ({@code policy_denied}, ...). */
	static final String REFUSAL_REASON = "mcp_relay.refusal.reason";

	/** On an interceptor span that refused: what refused (the policy's name, ...), for the operator only. */
	static final String REFUSAL_DETAIL = "mcp_relay.refusal.detail";

	/** On an interceptor span: {@code rejected}, {@code responded}, {@code changed}, {@code dropped}, … */
	static final String INTERCEPTOR_OUTCOME = "mcp_relay.interceptor.outcome";

	/** The conventions' {@code gen_ai.operation.name} of a tool call. */
	static final String EXECUTE_TOOL = "execute_tool";

	/** The conventions' {@code error.type} of a tool call answered with {@code isError: true}. */
	static final String TOOL_ERROR = "tool_error";

	/** The conventions' fallback value, for a value outside a bounded set. */
	static final String OTHER = "_OTHER";

	private McpAttributes() {
	}

}
