package dev.mcprelay.metrics;

import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.config.AccessLogProperties;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.jsonrpc.JsonRpcParser;

/**
 * Writes one line per client request, at INFO on the logger {@code mcp.relay.access}: server (as the path named it),
 * caller, HTTP method, rpc method, JSON-RPC id, the status the client got and the upstream's, outcome, duration, bytes,
 * the interceptor that stopped the request, the rule and reason of a refusal (as the client reads them in
 * {@code error.data}), the request's id ({@code X-Request-Id}, given or made) and the trace id of the request's first
 * message when tracing is on. Never a header value, an argument or a result. Text taken from the request (server id,
 * method, id, request id) is cut to {@value #MAX_VALUE_LENGTH} characters and escaped, so a client cannot forge or
 * flood log lines.
 */
@Component
class AccessLog {

	private static final Logger log = LoggerFactory.getLogger("mcp.relay.access");

	static final int MAX_VALUE_LENGTH = 128;

	private static final int LINE_CAPACITY = 288;

	/**
	 * The largest buffer a thread keeps for its next line: a line of escaped values may grow it past that (each value
	 * is cut to {@value #MAX_VALUE_LENGTH} characters, so a line is at most some KB), and is then written from a buffer
	 * that is dropped after it.
	 */
	private static final int MAX_KEPT_CAPACITY = 4 * 1024;

	/** Each thread's buffer of a line being written, so that a line costs its {@code String} only. */
	private static final ThreadLocal<StringBuilder> LINES = ThreadLocal.withInitial(() -> new StringBuilder(LINE_CAPACITY));

	private final AccessLogProperties properties;

	AccessLog(RelayProperties properties) {
		this.properties = properties.accessLog();
	}

	/** The fields of a line, in order. */
	private static final String[] FIELDS = { "server", "client", "http_method", "rpc_method", "id", "status",
			"upstream_status", "outcome", "duration_ms", "bytes", "interceptor", "rule", "reason", "request_id",
			"trace_id" };

	void write(ExchangeRecord record) {
		if (!properties.enabled() || !log.isInfoEnabled()) {
			return;
		}
		JsonNode id = record.rpcId();
		Object[] values = { clip(record.loggedServer()), clip(record.clientId()), record.httpMethodTag(),
				clip(record.rpcMethod()), id == null ? null : clip(id.asText()), record.status(), record.upstreamStatus(),
				record.outcome().tag(), TimeUnit.NANOSECONDS.toMillis(record.elapsedNanos()), record.bytes(),
				record.interceptor(), record.rule(), record.reason(), clip(record.requestId()), record.traceId() };
		log.info(properties.format() == AccessLogProperties.Format.JSON ? json(values) : text(values));
	}

	/**
	 * {@code key=value} pairs, written straight into one buffer: this runs once per request. The buffer is the thread's
	 * own, kept from line to line (its {@value #LINE_CAPACITY} characters, which a usual line fits: a tools/call with the
	 * relay's own 32-digit request id is about 220, 250 with a trace id), so that a line allocates only its
	 * {@code String}; one grown past {@value #MAX_KEPT_CAPACITY} is not kept.
	 */
	private static String text(Object[] values) {
		StringBuilder line = LINES.get();
		line.setLength(0);
		try {
			appendFields(line, values);
			return line.toString();
		}
		finally {
			if (line.capacity() > MAX_KEPT_CAPACITY) {
				LINES.remove();
			}
		}
	}

	private static void appendFields(StringBuilder line, Object[] values) {
		for (int i = 0; i < FIELDS.length; i++) {
			if (i > 0) {
				line.append(' ');
			}
			line.append(FIELDS[i]).append('=');
			Object value = values[i];
			if (value == null) {
				line.append('-');
			}
			else if (value instanceof Long number) {
				line.append(number.longValue());
			}
			else if (value instanceof Integer number) {
				line.append(number.intValue());
			}
			else {
				appendQuotedIfNeeded(line, value.toString());
			}
		}
	}

	private static String json(Object[] values) {
		ObjectNode node = JsonRpcParser.mapper().createObjectNode();
		for (int i = 0; i < FIELDS.length; i++) {
			node.set(FIELDS[i], JsonRpcParser.mapper().valueToTree(values[i]));
		}
		return new String(JsonRpcErrors.toBytes(node), java.nio.charset.StandardCharsets.UTF_8);
	}

	private static void appendQuotedIfNeeded(StringBuilder line, String value) {
		boolean plain = !value.isEmpty();
		for (int i = 0; plain && i < value.length(); i++) {
			char c = value.charAt(i);
			plain = c > ' ' && c < 127 && c != '"' && c != '=';
		}
		if (plain) {
			line.append(value);
			return;
		}
		line.append('"');
		value.codePoints().forEach(c -> {
			switch (c) {
				case '"' -> line.append("\\\"");
				case '\\' -> line.append("\\\\");
				case '\n' -> line.append("\\n");
				case '\r' -> line.append("\\r");
				case '\t' -> line.append("\\t");
				default -> {
					if (c < ' ' || c == 127) {
						line.append(String.format("\\u%04x", c));
					}
					else {
						line.appendCodePoint(c);
					}
				}
			}
		});
		line.append('"');
	}

	private static String clip(String value) {
		return value == null || value.length() <= MAX_VALUE_LENGTH ? value : value.substring(0, MAX_VALUE_LENGTH) + "...";
	}

}
