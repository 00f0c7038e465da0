package dev.mcprelay.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;

/**
 * How the relay reads a server's -32601 (method not found) answer to one of its lists ({@code tools/list},
 * {@code prompts/list}, {@code resources/list}, {@code resources/templates/list}): the server has no such list, so it
 * lists none. A server without resources answers so to {@code resources/templates/list}, one without tools to
 * {@code tools/list}. One reading for every part of the relay that lists a server on its own account (a virtual
 * server's lists, the policies' catalogues, tool search), so that one answer is never "lists none" on one path and
 * "unavailable" on another (reviews 43j N-4, 43n M-3). Any other error answer is the server failing.
 */
public final class NoSuchList {

	private NoSuchList() {
	}

	/** Whether {@code response}, a whole JSON-RPC response to a list request, says the server has no such list. */
	public static boolean saidBy(JsonNode response) {
		JsonNode code = response.path("error").path("code");
		return code.isIntegralNumber() && code.intValue() == JsonRpcErrorCodes.METHOD_NOT_FOUND;
	}

}
