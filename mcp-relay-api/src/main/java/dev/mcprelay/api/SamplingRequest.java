package dev.mcprelay.api;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * The server asks the client's model for a completion ({@code sampling/createMessage}): the conversation, the
 * system prompt, the model preferences and the token budget, each with a setter, so that a policy can redact what
 * leaves for the model, pin a model, or cap the cost before the user is asked.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/client/sampling">MCP, sampling</a>
 */
public final class SamplingRequest extends ServerRequest {

	public SamplingRequest(CallContext context, JsonRpcMessage message, boolean onStream) {
		super(context, message, onStream);
	}

	/** The messages the model is to continue, decoded. */
	public List<McpSchema.SamplingMessage> messages() {
		JsonNode messages = message().path("params").path("messages");
		return messages.isArray() ? List.of(decode(messages, McpSchema.SamplingMessage[].class, problem ->
				new RejectError(dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes.INVALID_PARAMS,
						"The server's sampling request holds messages that are not valid MCP"))) : List.of();
	}

	/** Replaces the messages. */
	public void setMessages(List<McpSchema.SamplingMessage> messages) {
		liveParams().set("messages", toJson(messages));
		markChanged();
	}

	/** The system prompt, or {@code null}. */
	public String systemPrompt() {
		return text(message().path("params"), "systemPrompt");
	}

	/** Sets the system prompt; {@code null} removes it. */
	public void setSystemPrompt(String systemPrompt) {
		if (systemPrompt == null) {
			liveParams().remove("systemPrompt");
		}
		else {
			liveParams().put("systemPrompt", systemPrompt);
		}
		markChanged();
	}

	/** The model preferences (hints, cost, speed, intelligence priorities), or {@code null}. */
	public McpSchema.ModelPreferences modelPreferences() {
		JsonNode preferences = message().path("params").get("modelPreferences");
		return preferences == null || preferences.isNull() ? null
				: decode(preferences, McpSchema.ModelPreferences.class, problem -> new RejectError(
						dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes.INVALID_PARAMS,
						"The server's model preferences are not valid MCP"));
	}

	/** Sets the model preferences; {@code null} removes them. */
	public void setModelPreferences(McpSchema.ModelPreferences preferences) {
		if (preferences == null) {
			liveParams().remove("modelPreferences");
		}
		else {
			liveParams().set("modelPreferences", toJson(preferences));
		}
		markChanged();
	}

	/** The most tokens the server asks for; 0 when absent. */
	public int maxTokens() {
		return message().path("params").path("maxTokens").asInt(0);
	}

	/** Sets the token budget. */
	public void setMaxTokens(int maxTokens) {
		liveParams().put("maxTokens", maxTokens);
		markChanged();
	}

}
