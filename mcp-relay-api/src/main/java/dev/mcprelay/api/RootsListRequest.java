package dev.mcprelay.api;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * The server asks which filesystem roots the client exposes ({@code roots/list}). It carries nothing to change; an
 * interceptor typically answers it itself ({@link Outcome#respond}, with {@code McpSchema.ListRootsResult}) to pin
 * the roots a server may see, or refuses it.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/client/roots">MCP, roots</a>
 */
public final class RootsListRequest extends ServerRequest {

	public RootsListRequest(CallContext context, JsonRpcMessage message, boolean onStream) {
		super(context, message, onStream);
	}

}
