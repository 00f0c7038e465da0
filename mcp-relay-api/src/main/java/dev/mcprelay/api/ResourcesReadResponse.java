package dev.mcprelay.api;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * The upstream's successful answer to a {@code resources/read}: the contents (text or blob, each with its URI and
 * MIME type), with a setter, so that a policy can redact or withhold what a resource holds. Fields no setter touches
 * are relayed unchanged.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/resources#reading-resources">MCP,
 * reading resources</a>
 */
public final class ResourcesReadResponse extends McpResponse {

	public ResourcesReadResponse(CallContext context, ObjectNode message, McpRequest request) {
		super(context, message, request);
	}

	/** The URI that was read. */
	public String uri() {
		return text(request().message().path("params"), "uri");
	}

	/** The contents, decoded; empty when there are none. */
	public List<McpSchema.ResourceContents> contents() {
		JsonNode contents = message().path("result").path("contents");
		return contents.isArray() ? List.of(decode(contents, McpSchema.ResourceContents[].class,
				problem -> new RejectError(JsonRpcErrorCodes.INTERNAL_ERROR,
						"The upstream's resources/read result holds contents that are not valid MCP"))) : List.of();
	}

	/** Replaces the contents. */
	public void setContents(List<? extends McpSchema.ResourceContents> contents) {
		liveResult().set("contents", toJson(contents));
		markChanged();
	}

}
