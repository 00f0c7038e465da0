package dev.mcprelay.policy;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.mcprelay.api.RequestHeaders;

/**
 * {@code request.headers} as an expression reads it: each header of the request by its name in lower case, its values
 * joined by {@code ", "}, never one that can carry a credential ({@link PolicyFacts#CREDENTIAL_HEADERS}). A view of
 * the request's headers made on demand: looking one name up ({@code request.headers[?"x-tenant"]},
 * {@code "x-tenant" in request.headers}) reads that header alone; only what reads the whole map (its size, iterating
 * it, comparing it) makes every entry, once. A request no rule reads the headers of costs nothing here.
 * Thread-safe.
 */
final class HeaderValues extends AbstractMap<String, String> {

	private final RequestHeaders headers;

	private volatile Map<String, String> all;

	HeaderValues(RequestHeaders headers) {
		this.headers = headers;
	}

	@Override
	public String get(Object key) {
		if (!(key instanceof String name) || !name.toLowerCase(Locale.ROOT).equals(name)
				|| PolicyFacts.CREDENTIAL_HEADERS.contains(name)) {
			return null;
		}
		Map<String, String> whole = all;
		if (whole != null) {
			return whole.get(name);
		}
		List<String> values = headers.get(name);
		if (!values.isEmpty()) {
			return String.join(", ", values);
		}
		return headers.containsHeader(name) ? "" : null;
	}

	@Override
	public boolean containsKey(Object key) {
		return get(key) != null;
	}

	@Override
	public Set<Entry<String, String>> entrySet() {
		Map<String, String> whole = all;
		if (whole == null) {
			Map<String, String> byName = new HashMap<>();
			for (String name : headers.names()) {
				String lower = name.toLowerCase(Locale.ROOT);
				if (!PolicyFacts.CREDENTIAL_HEADERS.contains(lower)) {
					List<String> values = headers.get(name);
					byName.put(lower, values == null ? "" : String.join(", ", values));
				}
			}
			whole = Collections.unmodifiableMap(byName);
			all = whole;
		}
		return whole.entrySet();
	}

}
