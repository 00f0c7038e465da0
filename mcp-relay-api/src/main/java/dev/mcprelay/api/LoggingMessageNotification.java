package dev.mcprelay.api;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * {@code notifications/message}: a log message of the server for the client, with its level, logger and data.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging">MCP, logging</a>
 */
public final class LoggingMessageNotification extends ServerNotification {

	static final String METHOD = "notifications/message";

	public LoggingMessageNotification(CallContext context, JsonRpcMessage message, boolean onStream) {
		super(context, message, onStream);
	}

	/** The level: {@code debug}, {@code info}, ... {@code emergency}. */
	public String level() {
		return text(message().path("params"), "level");
	}

	/** The logger's name, or {@code null}. */
	public String logger() {
		return text(message().path("params"), "logger");
	}

	/** A copy of the data (any JSON value). */
	public JsonNode data() {
		JsonNode data = message().path("params").get("data");
		return data == null ? null : data.deepCopy();
	}

	/** Replaces the data (any JSON-convertible value), e.g. to redact it. */
	public void setData(Object data) {
		liveParams().set("data", toJson(data));
		markChanged();
	}

}
