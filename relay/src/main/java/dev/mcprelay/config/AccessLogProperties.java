package dev.mcprelay.config;

import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The access log, mcp-relay.access-log: one line per client request on /mcp/{server}, logged at INFO by the logger
 * {@code mcp.relay.access} when the response ends (for a stream, when the stream ends). It holds no secret, no header
 * value and no argument or result content.
 *
 * @param enabled whether to write it
 * @param format {@code text} for key=value pairs, {@code json} for one JSON object per line
 */
public record AccessLogProperties(
		@DefaultValue("true") boolean enabled,
		@DefaultValue("text") Format format) {

	/** How an access-log line is written. */
	public enum Format {
		/** {@code key=value} pairs separated by spaces; values with spaces or quotes are quoted. */
		TEXT,
		/** One JSON object. */
		JSON
	}

}
