package dev.mcprelay.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A paginated list request: {@code tools/list}, {@code prompts/list}, {@code resources/list} or
 * {@code resources/templates/list}.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination">MCP,
 * pagination</a>
 */
public final class ListRequest extends McpRequest {

	public ListRequest(CallContext context, ObjectNode message) {
		super(context, message);
	}

	/** The cursor of the page asked for, or {@code null} for the first page. */
	public String cursor() {
		return text(message().path("params"), "cursor");
	}

}
