package dev.mcprelay.api;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * The server asks the user for input ({@code elicitation/create}): the message shown to the user and the schema of
 * what is asked for (form mode), or the URL to open (URL mode), with setters, so that a policy can refuse to let a
 * server ask for secrets, reword the question or narrow the schema.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation">MCP, elicitation</a>
 */
public final class ElicitationRequest extends ServerRequest {

	public ElicitationRequest(CallContext context, JsonRpcMessage message, boolean onStream) {
		super(context, message, onStream);
	}

	/** The message shown to the user. */
	public String userMessage() {
		return text(message().path("params"), "message");
	}

	/** Rewords the message shown to the user. */
	public void setUserMessage(String message) {
		liveParams().put("message", message);
		markChanged();
	}

	/** {@code form} (the default when absent) or {@code url}. */
	public String mode() {
		String mode = text(message().path("params"), "mode");
		return mode == null ? "form" : mode;
	}

	/** A copy of the requested schema (form mode), or {@code null}. */
	public JsonNode requestedSchema() {
		JsonNode schema = message().path("params").get("requestedSchema");
		return schema == null ? null : schema.deepCopy();
	}

	/** Replaces the requested schema (any JSON-convertible value). */
	public void setRequestedSchema(Object schema) {
		liveParams().set("requestedSchema", toJson(schema));
		markChanged();
	}

	/** The URL the user is asked to open (URL mode), or {@code null}. */
	public String url() {
		return text(message().path("params"), "url");
	}

}
