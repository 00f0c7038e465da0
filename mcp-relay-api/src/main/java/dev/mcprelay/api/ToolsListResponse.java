package dev.mcprelay.api;

import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.modelcontextprotocol.spec.McpSchema;

/**
 * A page of a {@code tools/list} result, whose tools may be hidden, reordered, replaced or added.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/tools#listing-tools">MCP, listing
 * tools</a>
 */
public final class ToolsListResponse extends ListResponse<McpSchema.Tool> {

	public ToolsListResponse(CallContext context, ObjectNode message, McpRequest request) {
		super(context, message, request, "tools", McpSchema.Tool.class);
	}

	/** The tools of this page, decoded; an unmodifiable list. */
	public List<McpSchema.Tool> tools() {
		return entries();
	}

	/** Replaces the tools: those taken from {@link #tools()} are relayed exactly as received. */
	public void setTools(List<McpSchema.Tool> tools) {
		setEntries(tools);
	}

	/** Hides the tools {@code filter} matches. */
	public void removeToolsIf(Predicate<? super McpSchema.Tool> filter) {
		removeEntriesIf(filter);
	}

	/**
	 * Edits tools' input schemas in place, keeping everything else of each tool as received: {@code editor} gets each
	 * tool's name and its live {@code inputSchema} object and says whether it changed it. Only a changed result is
	 * re-encoded.
	 */
	public void editInputSchemas(BiPredicate<String, ObjectNode> editor) {
		boolean changed = false;
		for (JsonNode tool : liveEntries()) {
			if (tool.get("inputSchema") instanceof ObjectNode schema) {
				changed |= editor.test(tool.path("name").asText(null), schema);
			}
		}
		if (changed) {
			entriesEdited();
		}
	}

}
