package dev.mcprelay.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A {@code resources/read} request: the URI of the resource asked for.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/resources#reading-resources">MCP,
 * reading resources</a>
 */
public final class ResourcesReadRequest extends McpRequest {

	public ResourcesReadRequest(CallContext context, ObjectNode message) {
		super(context, message);
	}

	/** The URI of the resource asked for. */
	public String uri() {
		return text(message().path("params"), "uri");
	}

}
