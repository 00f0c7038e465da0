package dev.mcprelay.policy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * JSON as CEL's runtime takes it: integers as {@code long}, other numbers as {@code double}, strings, booleans, lists
 * and maps of those; a JSON {@code null} leaves its field out (so {@code has(...)} is false for it); an instant (a
 * token's {@code exp}) is its epoch second, anything else its text. What a server
 * publishes and what a caller sends read alike, whatever decoded them.
 */
public final class CelValues {

	private CelValues() {
	}

	/** {@code object}'s fields, as CEL values; empty for anything but a JSON object. */
	public static Map<String, Object> fieldsOf(JsonNode object) {
		if (object == null || !object.isObject()) {
			return Map.of();
		}
		Map<String, Object> fields = new HashMap<>();
		object.properties().forEach(field -> {
			Object value = of(field.getValue());
			if (value != null) {
				fields.put(field.getKey(), value);
			}
		});
		return fields;
	}

	/** {@code node} as a CEL value; {@code null} for JSON null or a missing node. */
	public static Object of(JsonNode node) {
		if (node == null || node.isNull() || node.isMissingNode()) {
			return null;
		}
		if (node.isBoolean()) {
			return node.booleanValue();
		}
		if (node.isTextual()) {
			return node.textValue();
		}
		if (node.isIntegralNumber() && node.canConvertToLong()) {
			return node.longValue();
		}
		if (node.isNumber()) {
			return node.doubleValue();
		}
		if (node.isArray()) {
			List<Object> values = new ArrayList<>(node.size());
			node.forEach(element -> {
				Object value = of(element);
				if (value != null) {
					values.add(value);
				}
			});
			return values;
		}
		if (node.isObject()) {
			return fieldsOf(node);
		}
		return node.asText();
	}

	/** A value decoded from JSON by any mapper ({@code Integer}, {@code BigDecimal}, ...) as a CEL value. */
	public static Object of(Object value) {
		if (value == null || value instanceof String || value instanceof Boolean || value instanceof Long
				|| value instanceof Double) {
			return value;
		}
		if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
			return ((Number) value).longValue();
		}
		if (value instanceof BigInteger big) {
			return big.bitLength() < 64 ? (Object) big.longValue() : big.doubleValue();
		}
		if (value instanceof Float || value instanceof BigDecimal) {
			return ((Number) value).doubleValue();
		}
		if (value instanceof Map<?, ?> map) {
			Map<String, Object> fields = new HashMap<>();
			map.forEach((key, entry) -> {
				Object converted = of(entry);
				if (key != null && converted != null) {
					fields.put(String.valueOf(key), converted);
				}
			});
			return fields;
		}
		if (value instanceof List<?> list) {
			List<Object> values = new ArrayList<>(list.size());
			list.forEach(element -> {
				Object converted = of(element);
				if (converted != null) {
					values.add(converted);
				}
			});
			return values;
		}
		if (value instanceof JsonNode node) {
			return of(node);
		}
		if (value instanceof java.time.Instant instant) {
			return instant.getEpochSecond();
		}
		if (value instanceof java.util.Collection<?> collection) {
			return of(List.copyOf(collection));
		}
		return String.valueOf(value);
	}

}
