package dev.mcprelay.api;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.modelcontextprotocol.spec.McpSchema;

/**
 * The upstream's successful answer to a {@code tools/call}: the content blocks, the structured content and whether
 * the tool reports an error ({@code isError}). Each setter writes into the result as received, so fields no setter
 * touches (and {@code _meta}) are relayed unchanged.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-result">MCP, tool
 * result</a>
 */
public final class ToolsCallResponse extends McpResponse {

	public ToolsCallResponse(CallContext context, ObjectNode message, McpRequest request) {
		super(context, message, request);
	}

	/**
	 * The name of the tool that was called; {@code null} for a result on a GET stream whose request is not known (it
	 * meets this stage by its shape: see {@link ResponseInterceptor}), so a policy per tool treats it as any tool's.
	 */
	public String toolName() {
		return text(request().message().path("params"), "name");
	}

	/** The content blocks, decoded; empty when there are none. */
	public List<McpSchema.Content> content() {
		JsonNode content = message().path("result").path("content");
		if (!content.isArray()) {
			return List.of();
		}
		return List.of(decode(content, McpSchema.Content[].class, problem -> new RejectError(
				dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes.INTERNAL_ERROR,
				"The upstream's tools/call result holds content that is not valid MCP")));
	}

	/** Replaces the content blocks. */
	public void setContent(List<? extends McpSchema.Content> content) {
		liveResult().set("content", toJson(content));
		markChanged();
	}

	/** A copy of the structured content, or {@code null} when the result has none. */
	public JsonNode structuredContent() {
		JsonNode structured = message().path("result").get("structuredContent");
		return structured == null ? null : structured.deepCopy();
	}

	/** Sets the structured content (any JSON-convertible value); {@code null} removes it. */
	public void setStructuredContent(Object structuredContent) {
		if (structuredContent == null) {
			liveResult().remove("structuredContent");
		}
		else {
			liveResult().set("structuredContent", toJson(structuredContent));
		}
		markChanged();
	}

	/** Whether the tool reports that the call failed ({@code isError}; absent means false). */
	public boolean isError() {
		return message().path("result").path("isError").asBoolean(false);
	}

	/** Sets {@code isError}. */
	public void setError(boolean isError) {
		liveResult().put("isError", isError);
		markChanged();
	}

}
