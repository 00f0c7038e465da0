package dev.mcprelay.policy;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A read-only map of values decoded from JSON ({@link dev.mcprelay.api.JsonView}'s, or a mapper's) as CEL's runtime
 * takes it, converted when read and never copied whole: each value is {@link CelValues#of(Object)} of the source's, a
 * nested map such a view too, and a key whose value is {@code null} (a JSON {@code null}) is absent, as
 * {@link CelValues} leaves it out. Equal to the map {@link CelValues#of(Object)} would copy of the source. It reads the
 * source when asked; it changes nothing and nothing can change through it (every mutator throws). A value no CEL value
 * holds ({@link CelValues.OutOfRange}) throws when read, its key and the others read as any. Used by the thread
 * that decides one message, for as long as its decision.
 */
final class CelMapView extends AbstractMap<String, Object> {

	private final Map<String, ?> source;

	private CelMapView(Map<String, ?> source) {
		this.source = source;
	}

	/** {@code source}'s entries as CEL values, converted when read. */
	static Map<String, Object> of(Map<String, ?> source) {
		return source.isEmpty() ? Map.of() : new CelMapView(source);
	}

	/**
	 * A value of the source as a CEL value ({@link CelValues#of(Object)}: a map as a view).
	 * @throws CelValues.OutOfRange for a number no CEL value holds: the rule reading it fails, no other
	 */
	private static Object converted(Object value) {
		return CelValues.of(value);
	}

	@Override
	public Object get(Object key) {
		Object value = source.get(key);
		return value == null ? null : converted(value);
	}

	@Override
	public boolean containsKey(Object key) {
		return source.get(key) != null;
	}

	@Override
	public int size() {
		int size = 0;
		for (Object value : source.values()) {
			size += value == null ? 0 : 1;
		}
		return size;
	}

	@Override
	public Object put(String key, Object value) {
		throw new UnsupportedOperationException();
	}

	@Override
	public Object remove(Object key) {
		throw new UnsupportedOperationException();
	}

	@Override
	public void clear() {
		throw new UnsupportedOperationException();
	}

	/** The keys whose value is not {@code null}, read without converting a value (iterating a map's keys reads no value). */
	@Override
	public Set<String> keySet() {
		return new AbstractSet<>() {

			@Override
			public Iterator<String> iterator() {
				Iterator<? extends Map.Entry<String, ?>> entries = source.entrySet().iterator();
				return new Iterator<>() {

					private String next;

					@Override
					public boolean hasNext() {
						while (next == null && entries.hasNext()) {
							Map.Entry<String, ?> entry = entries.next();
							next = entry.getValue() == null ? null : entry.getKey();
						}
						return next != null;
					}

					@Override
					public String next() {
						if (!hasNext()) {
							throw new NoSuchElementException();
						}
						String key = next;
						next = null;
						return key;
					}

				};
			}

			@Override
			public boolean contains(Object key) {
				return containsKey(key);
			}

			@Override
			public int size() {
				return CelMapView.this.size();
			}

		};
	}

	@Override
	public Set<Map.Entry<String, Object>> entrySet() {
		return new AbstractSet<>() {

			@Override
			public Iterator<Map.Entry<String, Object>> iterator() {
				return new Entries(source.entrySet().iterator());
			}

			@Override
			public int size() {
				return CelMapView.this.size();
			}

		};
	}

	/** The source's entries whose value is not {@code null}, converted. */
	private static final class Entries implements Iterator<Map.Entry<String, Object>> {

		private final Iterator<? extends Map.Entry<String, ?>> source;

		private Map.Entry<String, Object> next;

		Entries(Iterator<? extends Map.Entry<String, ?>> source) {
			this.source = source;
		}

		@Override
		public boolean hasNext() {
			while (next == null && source.hasNext()) {
				Map.Entry<String, ?> entry = source.next();
				if (entry.getKey() != null && entry.getValue() != null) {
					next = new AbstractMap.SimpleImmutableEntry<>(entry.getKey(), converted(entry.getValue()));
				}
			}
			return next != null;
		}

		@Override
		public Map.Entry<String, Object> next() {
			if (!hasNext()) {
				throw new NoSuchElementException();
			}
			Map.Entry<String, Object> entry = next;
			next = null;
			return entry;
		}

	}

}
