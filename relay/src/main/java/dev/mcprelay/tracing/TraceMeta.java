package dev.mcprelay.tracing;

import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.micrometer.tracing.propagation.Propagator;

/**
 * Trace context inside a JSON-RPC message's {@code params._meta} (the conventions' propagation for MCP, SEP-414):
 * unprefixed {@code traceparent} and {@code tracestate} keys. Reading never fails: a {@code _meta} (or
 * {@code params}) that is not an object, or a {@code traceparent} that is not W3C's form, is no context. Writing
 * changes only those keys, in the message's own tree, and leaves a message whose {@code params} or {@code _meta}
 * is there but not an object as it is.
 */
final class TraceMeta {

	static final String TRACEPARENT = "traceparent";

	/** W3C Trace Context's {@code traceparent}: version, trace id, parent id, flags, lower-case hex. */
	private static final Pattern W3C_TRACEPARENT = Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

	/** Reads a key of a {@code _meta} object. */
	static final Propagator.Getter<ObjectNode> GETTER = (meta, key) -> {
		JsonNode value = meta.get(key);
		return value != null && value.isTextual() ? value.asText() : null;
	};

	/** Writes a key of a {@code _meta} object. */
	static final Propagator.Setter<ObjectNode> SETTER = (meta, key, value) -> meta.put(key, value);

	private TraceMeta() {
	}

	/**
	 * The message's {@code params._meta} when it carries a {@code traceparent} of W3C's form; else {@code null} (the
	 * propagator itself refuses the all-zero ids and unknown versions).
	 */
	static ObjectNode carrierOf(ObjectNode message) {
		if (message == null || !(message.get("params") instanceof ObjectNode params)
				|| !(params.get("_meta") instanceof ObjectNode meta)) {
			return null;
		}
		JsonNode traceparent = meta.get(TRACEPARENT);
		return traceparent != null && traceparent.isTextual()
				&& W3C_TRACEPARENT.matcher(traceparent.asText()).matches() ? meta : null;
	}

	/**
	 * The trace and span ids of a W3C {@code traceparent} value, and whether it is sampled; {@code null} when it is
	 * not of W3C's form or its ids are all zero.
	 */
	static String[] parts(String traceparent) {
		if (traceparent == null || !W3C_TRACEPARENT.matcher(traceparent).matches()) {
			return null;
		}
		String[] fields = traceparent.split("-");
		if (fields[1].chars().allMatch(c -> c == '0') || fields[2].chars().allMatch(c -> c == '0')) {
			return null;
		}
		return new String[] { fields[1], fields[2], String.valueOf((Integer.parseInt(fields[3], 16) & 1) == 1) };
	}

	/**
	 * The message's {@code params._meta}, made where {@code params} or {@code _meta} is missing, for the context to
	 * be written into; {@code null} when either is there but not an object, which is left alone.
	 */
	static ObjectNode writableMetaOf(ObjectNode message) {
		JsonNode params = message.get("params");
		if (params == null) {
			params = message.putObject("params");
		}
		if (!(params instanceof ObjectNode paramsObject)) {
			return null;
		}
		JsonNode meta = paramsObject.get("_meta");
		if (meta == null) {
			return paramsObject.putObject("_meta");
		}
		return meta instanceof ObjectNode metaObject ? metaObject : null;
	}

}
