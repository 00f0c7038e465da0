package dev.mcprelay.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.config.AccessLogProperties;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.jsonrpc.JsonRpcErrors;
import dev.mcprelay.jsonrpc.JsonRpcParser;

/**
 * Writes one line per client request, at INFO on the logger {@code mcp.relay.access}: server, caller, HTTP method, rpc
 * method, JSON-RPC id, upstream status, outcome, duration, bytes, the interceptor that stopped the request and the
 * failure reason. Never a header value, an argument or a result. Text taken from the request (method, id) is cut
 * to {@value #MAX_VALUE_LENGTH} characters and escaped, so a client cannot forge or flood log lines.
 */
@Component
class AccessLog {

	private static final Logger log = LoggerFactory.getLogger("mcp.relay.access");

	static final int MAX_VALUE_LENGTH = 128;

	private final AccessLogProperties properties;

	AccessLog(RelayProperties properties) {
		this.properties = properties.accessLog();
	}

	void write(ExchangeRecord record) {
		if (!properties.enabled() || !log.isInfoEnabled()) {
			return;
		}
		Map<String, Object> fields = new LinkedHashMap<>();
		fields.put("server", record.server());
		fields.put("client", clip(record.clientId()));
		fields.put("http_method", record.httpMethodTag());
		fields.put("rpc_method", clip(record.rpcMethod()));
		JsonNode id = record.rpcId();
		fields.put("id", id == null ? null : clip(id.asText()));
		fields.put("status", record.upstreamStatus());
		fields.put("outcome", record.outcome().tag());
		fields.put("duration_ms", TimeUnit.NANOSECONDS.toMillis(record.elapsedNanos()));
		fields.put("bytes", record.bytes());
		fields.put("interceptor", record.interceptor());
		fields.put("reason", record.reason());
		log.info(properties.format() == AccessLogProperties.Format.JSON ? json(fields) : text(fields));
	}

	private static String text(Map<String, Object> fields) {
		StringBuilder line = new StringBuilder();
		fields.forEach((key, value) -> {
			if (!line.isEmpty()) {
				line.append(' ');
			}
			line.append(key).append('=').append(value == null ? "-" : quoteIfNeeded(String.valueOf(value)));
		});
		return line.toString();
	}

	private static String json(Map<String, Object> fields) {
		ObjectNode node = JsonRpcParser.mapper().createObjectNode();
		fields.forEach((key, value) -> node.set(key, JsonRpcParser.mapper().valueToTree(value)));
		return new String(JsonRpcErrors.toBytes(node), java.nio.charset.StandardCharsets.UTF_8);
	}

	private static String quoteIfNeeded(String value) {
		boolean plain = !value.isEmpty() && value.chars().allMatch(c -> c > ' ' && c < 127 && c != '"' && c != '=');
		if (plain) {
			return value;
		}
		StringBuilder quoted = new StringBuilder("\"");
		value.chars().forEach(c -> {
			switch (c) {
				case '"' -> quoted.append("\\\"");
				case '\\' -> quoted.append("\\\\");
				case '\n' -> quoted.append("\\n");
				case '\r' -> quoted.append("\\r");
				case '\t' -> quoted.append("\\t");
				default -> {
					if (c < ' ' || c == 127) {
						quoted.append(String.format("\\u%04x", c));
					}
					else {
						quoted.appendCodePoint(c);
					}
				}
			}
		});
		return quoted.append('"').toString();
	}

	private static String clip(String value) {
		return value == null || value.length() <= MAX_VALUE_LENGTH ? value : value.substring(0, MAX_VALUE_LENGTH) + "...";
	}

}
