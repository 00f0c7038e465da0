package dev.mcprelay.api;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The client's HTTP request headers, read-only, as an interceptor sees them ({@link CallContext#headers()}). Names
 * are compared case-insensitively, as HTTP says.
 */
public interface RequestHeaders {

	/** The first value of header {@code name}, or {@code null} when the request has none. */
	String getFirst(String name);

	/** Every value of header {@code name}, in the order received; empty when the request has none. */
	List<String> get(String name);

	/** Whether the request has header {@code name}. */
	default boolean containsHeader(String name) {
		return !get(name).isEmpty();
	}

	/** The names of the headers the request has, as received. */
	Set<String> names();

	/** No headers at all. */
	static RequestHeaders empty() {
		return of(Map.of());
	}

	/**
	 * Headers holding {@code headers} (a copy): for tests, and for anything that is not an HTTP request of the relay.
	 */
	static RequestHeaders of(Map<String, List<String>> headers) {
		Map<String, List<String>> byLowerName = new LinkedHashMap<>();
		Map<String, String> names = new LinkedHashMap<>();
		headers.forEach((name, values) -> {
			String key = name.toLowerCase(Locale.ROOT);
			byLowerName.computeIfAbsent(key, k -> new java.util.ArrayList<>()).addAll(values);
			names.putIfAbsent(key, name);
		});
		byLowerName.replaceAll((name, values) -> List.copyOf(values));
		Set<String> received = Set.copyOf(names.values());
		return new RequestHeaders() {

			@Override
			public String getFirst(String name) {
				List<String> values = get(name);
				return values.isEmpty() ? null : values.get(0);
			}

			@Override
			public List<String> get(String name) {
				return byLowerName.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
			}

			@Override
			public Set<String> names() {
				return received;
			}

			@Override
			public String toString() {
				return "RequestHeaders" + received;
			}

		};
	}

}
