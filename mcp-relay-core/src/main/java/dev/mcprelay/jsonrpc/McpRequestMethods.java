package dev.mcprelay.jsonrpc;

import java.util.Set;

/**
 * The methods the MCP schema defines as requests (2024-11-05 to 2026-07-28), in either direction: a message of one of
 * them expects an answer, so it always has an id. A message without an id that names one is no notification MCP
 * defines; a generic JSON-RPC server would still execute it, unanswered and past every request stage, so a client's is
 * refused as an invalid message ({@link JsonRpcParser#parseClientBody}) and an upstream's is never relayed.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/schema">MCP schema</a>
 */
public final class McpRequestMethods {

	/** The client's requests to the server. */
	private static final Set<String> CLIENT_REQUESTS = Set.of("initialize", "ping", "tools/list", "tools/call",
			"prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read",
			"resources/subscribe", "resources/unsubscribe", "completion/complete", "logging/setLevel", "tasks/get",
			"tasks/list", "tasks/result", "tasks/cancel", "server/discover", "subscriptions/listen");

	/** The server's requests to the client. */
	private static final Set<String> SERVER_REQUESTS = Set.of("ping", "sampling/createMessage", "elicitation/create",
			"roots/list", "tasks/get", "tasks/list", "tasks/result", "tasks/cancel");

	private McpRequestMethods() {
	}

	/** Whether {@code method} is a request in the MCP schema, in either direction. */
	public static boolean isRequest(String method) {
		return method != null && (CLIENT_REQUESTS.contains(method) || SERVER_REQUESTS.contains(method));
	}

}
