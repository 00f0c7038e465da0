package dev.mcprelay.api;

import java.util.List;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.modelcontextprotocol.spec.McpSchema;

/**
 * A page of a {@code resources/list} result, whose resources may be hidden, reordered, replaced or added.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/resources#listing-resources">MCP,
 * listing resources</a>
 */
public final class ResourcesListResponse extends ListResponse<McpSchema.Resource> {

	public ResourcesListResponse(CallContext context, ObjectNode message, McpRequest request) {
		super(context, message, request, "resources", McpSchema.Resource.class);
	}

	/** The resources of this page, decoded; an unmodifiable list. */
	public List<McpSchema.Resource> resources() {
		return entries();
	}

	/** Replaces the resources: those taken from {@link #resources()} are relayed exactly as received. */
	public void setResources(List<McpSchema.Resource> resources) {
		setEntries(resources);
	}

	/** Hides the resources {@code filter} matches. */
	public void removeResourcesIf(Predicate<? super McpSchema.Resource> filter) {
		removeEntriesIf(filter);
	}

}
