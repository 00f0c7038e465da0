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
 * {@code request.headers} as an expression reads it: each header of the request by its name in lower case, its value
 * as sent (one line, commas and all), never one that can carry a credential ({@link PolicyFacts#CREDENTIAL_HEADERS}).
 * A header sent on several lines that say the same reads as that one value; one whose lines differ
 * ({@code X-Tenant: evil}, then {@code X-Tenant: good}) has no value a rule could judge for the upstream, which may act
 * on either line: reading it throws {@link Conflicting}, which makes the expression's verdict an error (refusing, and
 * counted, as any run-time failure; {@link PolicyExpression}). A view of
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
			return oneValue(values);
		}
		return headers.containsHeader(name) ? "" : null;
	}

	/** The one value {@code lines} (one header's, at least one) say. @throws Conflicting when they differ */
	private static String oneValue(List<String> lines) {
		String first = lines.get(0);
		for (int i = 1; i < lines.size(); i++) {
			if (!first.equals(lines.get(i))) {
				throw new Conflicting();
			}
		}
		return first;
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
					byName.put(lower, values == null || values.isEmpty() ? "" : oneValue(values));
				}
			}
			whole = Collections.unmodifiableMap(byName);
			all = whole;
		}
		return whole.entrySet();
	}

	/**
	 * A rule read a header whose lines differ (or the whole map of a request with one): no message, so nothing of the
	 * values reaches a log; the rule's error is of kind {@value #KIND}.
	 */
	static final class Conflicting extends UnreadableValue {

		/** The kind of error of a rule that read it ({@link RuleVerdict#error}). */
		static final String KIND = "conflicting_header";

		Conflicting() {
			super(KIND);
		}

	}

}
