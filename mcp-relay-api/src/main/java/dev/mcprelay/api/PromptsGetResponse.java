package dev.mcprelay.api;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * The upstream's successful answer to a {@code prompts/get}: the prompt's description and messages, each with a
 * setter (to redact, or to add a policy message). Fields no setter touches are relayed unchanged.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#getting-a-prompt">MCP,
 * getting a prompt</a>
 */
public final class PromptsGetResponse extends McpResponse {

	public PromptsGetResponse(CallContext context, ObjectNode message, McpRequest request) {
		super(context, message, request);
	}

	/** The name of the prompt that was asked for. */
	public String promptName() {
		return text(request().message().path("params"), "name");
	}

	/** The prompt's description, or {@code null}. */
	public String description() {
		return text(message().path("result"), "description");
	}

	/** Sets the description; {@code null} removes it. */
	public void setDescription(String description) {
		if (description == null) {
			liveResult().remove("description");
		}
		else {
			liveResult().put("description", description);
		}
		markChanged();
	}

	/** The prompt's messages, decoded; empty when there are none. */
	public List<McpSchema.PromptMessage> messages() {
		JsonNode messages = message().path("result").path("messages");
		return messages.isArray() ? List.of(decode(messages, McpSchema.PromptMessage[].class,
				problem -> new RejectError(JsonRpcErrorCodes.INTERNAL_ERROR,
						"The upstream's prompts/get result holds messages that are not valid MCP"))) : List.of();
	}

	/** Replaces the messages. */
	public void setMessages(List<McpSchema.PromptMessage> messages) {
		liveResult().set("messages", toJson(messages));
		markChanged();
	}

}
