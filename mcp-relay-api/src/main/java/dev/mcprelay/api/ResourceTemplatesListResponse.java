package dev.mcprelay.api;

import java.util.List;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.modelcontextprotocol.spec.McpSchema;

/**
 * A page of a {@code resources/templates/list} result, whose resource templates may be hidden, reordered, replaced or
 * added.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/resources#resource-templates">MCP,
 * resource templates</a>
 */
public final class ResourceTemplatesListResponse extends ListResponse<McpSchema.ResourceTemplate> {

	public ResourceTemplatesListResponse(CallContext context, ObjectNode message, McpRequest request) {
		super(context, message, request, "resourceTemplates", McpSchema.ResourceTemplate.class);
	}

	/** The templates of this page, decoded; an unmodifiable list. */
	public List<McpSchema.ResourceTemplate> resourceTemplates() {
		return entries();
	}

	/** Replaces the templates: those taken from {@link #resourceTemplates()} are relayed exactly as received. */
	public void setResourceTemplates(List<McpSchema.ResourceTemplate> templates) {
		setEntries(templates);
	}

	/** Hides the templates {@code filter} matches. */
	public void removeResourceTemplatesIf(Predicate<? super McpSchema.ResourceTemplate> filter) {
		removeEntriesIf(filter);
	}

}
