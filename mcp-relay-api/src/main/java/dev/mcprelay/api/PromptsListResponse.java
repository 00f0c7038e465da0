package dev.mcprelay.api;

import java.util.List;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.modelcontextprotocol.spec.McpSchema;

/**
 * A page of a {@code prompts/list} result, whose prompts may be hidden, reordered, replaced or added.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#listing-prompts">MCP,
 * listing prompts</a>
 */
public final class PromptsListResponse extends ListResponse<McpSchema.Prompt> {

	public PromptsListResponse(CallContext context, ObjectNode message, McpRequest request) {
		super(context, message, request, "prompts", McpSchema.Prompt.class);
	}

	/** The prompts of this page, decoded; an unmodifiable list. */
	public List<McpSchema.Prompt> prompts() {
		return entries();
	}

	/** Replaces the prompts: those taken from {@link #prompts()} are relayed exactly as received. */
	public void setPrompts(List<McpSchema.Prompt> prompts) {
		setEntries(prompts);
	}

	/** Hides the prompts {@code filter} matches. */
	public void removePromptsIf(Predicate<? super McpSchema.Prompt> filter) {
		removeEntriesIf(filter);
	}

}
