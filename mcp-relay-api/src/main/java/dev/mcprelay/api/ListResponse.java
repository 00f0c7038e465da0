package dev.mcprelay.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;

/**
 * A page of a list result ({@code tools}, {@code prompts}, {@code resources}) whose entries may be removed, reordered,
 * replaced or added. Entries kept from the upstream's list are relayed exactly as received, unknown fields and
 * {@code _meta} included; an entry an interceptor builds itself is written as its MCP schema type encodes it.
 *
 * @param <T> the MCP schema type of an entry
 */
public abstract class ListResponse<T> extends McpResponse {

	private final String field;

	private final Class<T> entryType;

	private List<T> entries;

	private Map<T, JsonNode> received;

	ListResponse(CallContext context, ObjectNode message, McpRequest request, String field, Class<T> entryType) {
		super(context, message, request);
		this.field = field;
		this.entryType = entryType;
	}

	/** The cursor of the next page, or {@code null} on the last page. */
	public String nextCursor() {
		return text(message().path("result"), "nextCursor");
	}

	/** The entries, decoded, in order; the list itself cannot be modified. */
	List<T> entries() {
		if (entries == null) {
			JsonNode array = message().path("result").path(field);
			List<T> decoded = new ArrayList<>(array.size());
			Map<T, JsonNode> byEntry = new IdentityHashMap<>();
			for (JsonNode node : array) {
				T entry = decode(node, entryType, problem -> new RejectError(JsonRpcErrorCodes.INTERNAL_ERROR,
						"The upstream's " + method() + " result holds an entry that is not valid MCP"));
				decoded.add(entry);
				byEntry.put(entry, node);
			}
			entries = Collections.unmodifiableList(decoded);
			received = byEntry;
		}
		return entries;
	}

	/** Replaces the entries: those taken from {@link #entries()} keep their JSON as received. */
	void setEntries(List<T> replacement) {
		entries();
		ArrayNode array = message().arrayNode(replacement.size());
		for (T entry : replacement) {
			JsonNode original = received.get(entry);
			array.add(original != null ? original : toJson(entry));
		}
		liveResult().set(field, array);
		entries = List.copyOf(replacement);
		markChanged();
	}

	/** The entries as they will be relayed: the live JSON array, or an empty one. */
	Iterable<JsonNode> liveEntries() {
		return message().path("result").path(field);
	}

	/** The live JSON of some entry changed: the message is re-encoded, and the decoded entries are read anew. */
	void entriesEdited() {
		entries = null;
		received = null;
		markChanged();
	}

	/**
	 * Removes the entries whose JSON, as received, {@code filter} matches, without decoding any entry: for a rule that
	 * reads a field or two of a long list. The entries kept are relayed as received; a no-op (and no re-encoding) when
	 * it matches none.
	 */
	public void removeEntriesWhere(Predicate<? super JsonNode> filter) {
		JsonNode array = message().path("result").path(field);
		if (!array.isArray()) {
			return;
		}
		ArrayNode kept = null;
		int index = 0;
		for (JsonNode entry : array) {
			boolean remove = filter.test(entry);
			if (remove && kept == null) {
				kept = message().arrayNode(array.size());
				for (int i = 0; i < index; i++) {
					kept.add(array.get(i));
				}
			}
			else if (!remove && kept != null) {
				kept.add(entry);
			}
			index++;
		}
		if (kept != null) {
			liveResult().set(field, kept);
			entriesEdited();
		}
	}

	/** Removes the entries {@code filter} matches; a no-op (and no re-encoding) when it matches none. */
	void removeEntriesIf(Predicate<? super T> filter) {
		List<T> kept = entries().stream().filter(filter.negate()).toList();
		if (kept.size() != entries.size()) {
			setEntries(kept);
		}
	}

}
