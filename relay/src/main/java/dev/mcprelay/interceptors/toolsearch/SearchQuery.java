package dev.mcprelay.interceptors.toolsearch;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.RejectError;

/**
 * The arguments of one call of {@value ToolSearchPolicy#SEARCH_TOOL}, checked.
 *
 * @param text the query as the client sent it (shown back in the summary)
 * @param read the part of it that is searched: its first {@link #MAX_QUERY_CHARS} characters
 * @param limit how many tools to return: the client's {@code limit}, capped at the server's {@code max-results}
 */
public record SearchQuery(String text, String read, int limit) {

	/** The longest query read; the rest is ignored. */
	static final int MAX_QUERY_CHARS = 1000;

	/**
	 * @throws RejectError (-32602, naming the argument) for a missing, empty or non-string {@code query}, or a
	 * {@code limit} that is not a whole number of at least 1
	 */
	public static SearchQuery of(JsonNode arguments, int maxResults) {
		JsonNode query = arguments.path("query");
		if (!query.isTextual() || query.asText().isBlank()) {
			throw RejectError.invalidParams(ToolSearchPolicy.SEARCH_TOOL + " needs a non-empty string 'query': the "
					+ "task or capability to find tools for, e.g. \"create a GitHub issue\".");
		}
		int limit = maxResults;
		JsonNode asked = arguments.path("limit");
		if (!asked.isMissingNode() && !asked.isNull()) {
			if (!asked.canConvertToLong() || !asked.isIntegralNumber() || asked.asLong() < 1) {
				throw RejectError.invalidParams(ToolSearchPolicy.SEARCH_TOOL + " takes an optional 'limit' that is a "
						+ "whole number of at least 1 (at most " + maxResults + " are returned).");
			}
			limit = (int) Math.min(asked.asLong(), maxResults);
		}
		String text = query.asText();
		return new SearchQuery(text, text.length() > MAX_QUERY_CHARS ? text.substring(0, MAX_QUERY_CHARS) : text, limit);
	}

}
