package dev.mcprelay.api;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.modelcontextprotocol.spec.McpSchema;

/**
 * A {@code prompts/get} request: the prompt's name and its arguments.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#getting-a-prompt">MCP,
 * getting a prompt</a>
 */
public final class PromptsGetRequest extends McpRequest {

	public PromptsGetRequest(CallContext context, ObjectNode message) {
		super(context, message);
	}

	/** The name of the prompt asked for. */
	public String promptName() {
		return text(message().path("params"), "name");
	}

	/** A copy of the arguments; empty when there are none. */
	public Map<String, Object> arguments() {
		Map<String, Object> arguments = toSchema().arguments();
		return arguments == null ? new LinkedHashMap<>() : new LinkedHashMap<>(arguments);
	}

	/** The params decoded. */
	public McpSchema.GetPromptRequest toSchema() {
		return paramsAs(McpSchema.GetPromptRequest.class);
	}

}
