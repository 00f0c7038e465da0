package dev.mcprelay.api;

import java.util.AbstractList;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.RandomAccess;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A part of a message's JSON read in place, as plain Java values, without a copy: what a getter's copy would decode,
 * for a fraction of its cost, and with no way back into the message.
 *
 * <p>A JSON object is an unmodifiable {@code Map<String, Object>} in the order sent, a JSON array an unmodifiable
 * {@code List<Object>}; each reads the message's tree when asked, and each value it hands out is a view too, made
 * when read: nothing of the tree is copied or decoded that is not read. A string is a {@code String}, {@code true} and
 * {@code false} a {@code Boolean}, a number the {@code Number} the message's parse made of it ({@code Integer},
 * {@code Long} or {@code BigInteger} for an integer, {@code BigDecimal} for any other: its text kept, as the relay's
 * mapper decodes it), a JSON {@code null} {@code null} (a map holds a key whose value is {@code null}).
 *
 * <p>Read-only, deeply: every method that would change a view throws {@link UnsupportedOperationException}, and
 * nothing it hands out is the tree itself, so an interceptor or a policy that reads through it cannot change what the
 * relay decides on or forwards. A view reads the message as it is when read: after a setter changed the message, it
 * shows the change. Valid for as long as the message it views; like the message, used by one stage at a time.
 */
public final class JsonView {

	private JsonView() {
	}

	/** {@code node} as a read-only value: {@code null} for JSON {@code null}, a missing node or {@code null}. */
	public static Object of(JsonNode node) {
		if (node == null || node.isNull() || node.isMissingNode()) {
			return null;
		}
		if (node.isTextual()) {
			return node.textValue();
		}
		if (node.isBoolean()) {
			return node.booleanValue();
		}
		if (node.isNumber()) {
			return node.numberValue();
		}
		if (node.isObject()) {
			return new ObjectView(node);
		}
		if (node.isArray()) {
			return new ArrayView(node);
		}
		return node.asText();
	}

	/** The fields of {@code node} as a read-only map; empty for anything but a JSON object. */
	public static Map<String, Object> fieldsOf(JsonNode node) {
		return node != null && node.isObject() ? new ObjectView(node) : Map.of();
	}

	/** A JSON object: its fields read in place, in the order sent. */
	private static final class ObjectView extends AbstractMap<String, Object> {

		private final JsonNode object;

		private Set<Map.Entry<String, Object>> entries;

		ObjectView(JsonNode object) {
			this.object = object;
		}

		@Override
		public Object get(Object key) {
			return key instanceof String name ? of(object.get(name)) : null;
		}

		@Override
		public boolean containsKey(Object key) {
			return key instanceof String name && object.has(name);
		}

		@Override
		public int size() {
			return object.size();
		}

		@Override
		public boolean isEmpty() {
			return object.isEmpty();
		}

		@Override
		public Object put(String key, Object value) {
			throw readOnly();
		}

		@Override
		public Object remove(Object key) {
			throw readOnly();
		}

		@Override
		public void clear() {
			throw readOnly();
		}

		@Override
		public Set<Map.Entry<String, Object>> entrySet() {
			if (entries == null) {
				entries = new AbstractSet<>() {

					@Override
					public Iterator<Map.Entry<String, Object>> iterator() {
						Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
						return new Iterator<>() {

							@Override
							public boolean hasNext() {
								return fields.hasNext();
							}

							@Override
							public Map.Entry<String, Object> next() {
								Map.Entry<String, JsonNode> field = fields.next();
								return new AbstractMap.SimpleImmutableEntry<>(field.getKey(), of(field.getValue()));
							}

						};
					}

					@Override
					public int size() {
						return object.size();
					}

				};
			}
			return entries;
		}

	}

	/** A JSON array: its elements read in place. */
	private static final class ArrayView extends AbstractList<Object> implements RandomAccess {

		private final JsonNode array;

		ArrayView(JsonNode array) {
			this.array = array;
		}

		@Override
		public Object get(int index) {
			if (index < 0 || index >= array.size()) {
				throw new IndexOutOfBoundsException(index);
			}
			return of(array.get(index));
		}

		@Override
		public int size() {
			return array.size();
		}

		@Override
		public void clear() {
			throw readOnly();
		}

	}

	private static UnsupportedOperationException readOnly() {
		return new UnsupportedOperationException("a view of the message is read-only: change it through its setters");
	}

}
