package dev.mcprelay.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The arguments a call could carry that decide a listed item exactly, when every rule that reads arguments reads them
 * in a form constants decide ({@link ArgumentShapes#exact()}): for each argument name read, its absence, each constant
 * the rules hold, {@code true}, {@code false}, and a value equal to none of them; every combination of those, at most
 * {@value #MAX} of them. Then an item is listed if and only if one of them would be allowed: what is listed is exactly
 * what may be called with some arguments. {@code null} when no such set exists (a form constants do not decide, too
 * many combinations): the item is then listed, and each call decided by its arguments.
 */
final class ArgumentCandidates {

	/** The most argument sets tried for one listed item. */
	static final int MAX = 256;

	/** A value no rule names: compared with every constant, it is equal to none. */
	private static final String OTHER = "\u0000mcp-relay-other-value";

	private static final Object ABSENT = new Object();

	private ArgumentCandidates() {
	}

	/** The argument sets that decide the rules of {@code shapes} exactly, or {@code null} when none do. */
	static List<Map<String, Object>> of(List<ArgumentShapes> shapes) {
		Set<String> names = new LinkedHashSet<>();
		Set<Object> values = new LinkedHashSet<>();
		for (ArgumentShapes shape : shapes) {
			if (!shape.exact()) {
				return null;
			}
			names.addAll(shape.names());
			values.addAll(shape.constants());
		}
		values.add(true);
		values.add(false);
		values.add(OTHER);
		values.add(ABSENT);
		long combinations = 1;
		for (int i = 0; i < names.size(); i++) {
			combinations *= values.size();
			if (combinations > MAX) {
				return null;
			}
		}
		List<Map<String, Object>> candidates = new ArrayList<>();
		candidates.add(new HashMap<>());
		for (String name : names) {
			List<Map<String, Object>> next = new ArrayList<>(candidates.size() * values.size());
			for (Map<String, Object> partial : candidates) {
				for (Object value : values) {
					Map<String, Object> arguments = new HashMap<>(partial);
					if (value != ABSENT) {
						arguments.put(name, value);
					}
					next.add(arguments);
				}
			}
			candidates = next;
		}
		return candidates;
	}

}
