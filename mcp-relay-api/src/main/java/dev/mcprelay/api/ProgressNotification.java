package dev.mcprelay.api;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * {@code notifications/progress}: how far a request of the client has come.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress">MCP, progress</a>
 */
public final class ProgressNotification extends ServerNotification {

	static final String METHOD = "notifications/progress";

	public ProgressNotification(CallContext context, JsonRpcMessage message, boolean onStream) {
		super(context, message, onStream);
	}

	/** The token of the request this reports on (a string or a number), as a copy. */
	public JsonNode progressToken() {
		JsonNode token = message().path("params").get("progressToken");
		return token == null ? null : token.deepCopy();
	}

	/** The progress so far. */
	public double progress() {
		return message().path("params").path("progress").asDouble();
	}

	/** The total, or {@code null} when unknown. */
	public Double total() {
		JsonNode total = message().path("params").get("total");
		return total == null || !total.isNumber() ? null : total.asDouble();
	}

	/** The human-readable message, or {@code null}. */
	public String progressMessage() {
		return text(message().path("params"), "message");
	}

	/** Sets the human-readable message; {@code null} removes it. */
	public void setProgressMessage(String text) {
		if (text == null) {
			liveParams().remove("message");
		}
		else {
			liveParams().put("message", text);
		}
		markChanged();
	}

}
