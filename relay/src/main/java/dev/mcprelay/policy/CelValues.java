package dev.mcprelay.policy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import dev.cel.common.values.NullValue;

/**
 * JSON as CEL's runtime takes it: integers as {@code long}, other numbers as {@code double}, strings, booleans, lists
 * and maps of those; a JSON {@code null} leaves its field out (so {@code has(...)} is false for it), and is CEL's
 * {@code null} in a list (in its place, so that indexes read what the server gets); an instant (a
 * token's {@code exp}) is its epoch second, anything else its text. What a server
 * publishes and what a caller sends read alike, whatever decoded them.
 *
 * <p>A number of magnitude 2<sup>63</sup> or more that a mapper decoded (a call's argument, a token's claim: an
 * integer outside {@code int64}, or such a number written with a fraction or an exponent) has no CEL value a rule
 * could judge: a server may read it as another number ({@code 18446744073709551638}, 2<sup>64</sup>+22, is 22 to a
 * Java server's {@code intValue()}), so a deny on {@code == 22} would pass it. A map of such values is converted when
 * read ({@link CelMapView}), and converting that number throws {@link OutOfRange}: the rule that reads it fails at run
 * time, and no other.
 */
public final class CelValues {

	/** 2<sup>63</sup>: no number of this magnitude or more has a CEL value ({@link OutOfRange}). */
	private static final double INT64_BOUND = 0x1p63;

	private static final BigDecimal INT64_DECIMAL_BOUND = new BigDecimal(BigInteger.ONE.shiftLeft(63));

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
			node.forEach(element -> values.add(element(of(element))));
			return values;
		}
		if (node.isObject()) {
			return fieldsOf(node);
		}
		return node.asText();
	}

	/**
	 * A value decoded from JSON by any mapper ({@code Integer}, {@code BigDecimal}, ...) as a CEL value; a map as a
	 * view converted when read ({@link CelMapView}).
	 * @throws OutOfRange for a number of magnitude 2<sup>63</sup> or more (read by an expression: its rule fails)
	 */
	@SuppressWarnings("unchecked")
	public static Object of(Object value) {
		if (value == null || value instanceof String || value instanceof Boolean || value instanceof Long
				|| value instanceof CelMapView) {
			return value;
		}
		if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
			return ((Number) value).longValue();
		}
		if (value instanceof BigInteger big) {
			if (big.bitLength() >= 64) {
				throw new OutOfRange();
			}
			return big.longValue();
		}
		if (value instanceof Double || value instanceof Float) {
			double number = ((Number) value).doubleValue();
			if (!(Math.abs(number) < INT64_BOUND)) {
				throw new OutOfRange();
			}
			return number;
		}
		if (value instanceof BigDecimal decimal) {
			if (decimal.abs().compareTo(INT64_DECIMAL_BOUND) >= 0) {
				throw new OutOfRange();
			}
			return decimal.doubleValue();
		}
		if (value instanceof Map<?, ?> map) {
			return CelMapView.of((Map<String, ?>) map);
		}
		if (value instanceof List<?> list) {
			List<Object> values = new ArrayList<>(list.size());
			list.forEach(element -> values.add(element(of(element))));
			return values;
		}
		if (value instanceof JsonNode node) {
			return of(node);
		}
		if (value instanceof java.time.Instant instant) {
			return instant.getEpochSecond();
		}
		if (value instanceof java.util.Collection<?> collection) {
			return of(new ArrayList<>(collection));
		}
		return String.valueOf(value);
	}

	/**
	 * A list's element as CEL holds it: a JSON {@code null} is CEL's {@code null}, in its place, so that an index reads
	 * the element the server gets (review 43f F-E: left out, it shifted the elements after it).
	 */
	private static Object element(Object converted) {
		return converted == null ? NullValue.NULL_VALUE : converted;
	}

	/**
	 * A number with no CEL value (magnitude 2<sup>63</sup> or more), read by an expression: its rule's error is of kind
	 * {@value #KIND}.
	 */
	static final class OutOfRange extends UnreadableValue {

		static final String KIND = "number_out_of_range";

		OutOfRange() {
			super(KIND);
		}

	}

}
