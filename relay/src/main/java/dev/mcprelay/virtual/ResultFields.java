package dev.mcprelay.virtual;

import java.util.List;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The fields of a merged result beside what the virtual server merges itself (the items of a list, the capabilities
 * of a discovery): the first member's, so that what a protocol generation requires of every result
 * ({@code resultType} in 2026-07-28) is there, with {@code ttlMs} the shortest of the members' and {@code cacheScope}
 * {@code private} when any member's is (a result one caller may not share stays unshared).
 */
final class ResultFields {

	private ResultFields() {
	}

	/** Adds to {@code merged} the fields of {@code results} it does not have yet. */
	static void merge(ObjectNode merged, List<ObjectNode> results) {
		if (results.isEmpty()) {
			return;
		}
		results.get(0).properties().forEach(field -> {
			if (!merged.has(field.getKey())) {
				merged.set(field.getKey(), field.getValue().deepCopy());
			}
		});
		if (results.stream().anyMatch(result -> result.has("ttlMs"))) {
			merged.put("ttlMs", results.stream().mapToLong(result -> result.path("ttlMs").asLong(0)).min().orElse(0));
		}
		if (results.stream().anyMatch(result -> result.has("cacheScope"))) {
			boolean shared = results.stream().allMatch(result -> "public".equals(result.path("cacheScope").asText()));
			merged.put("cacheScope", shared ? "public" : "private");
		}
	}

}
