package dev.mcprelay.interceptors.toolsearch;

import java.util.List;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;

/** What tool search shows a client: the search tool in {@code tools/list}, and the result of one search. */
public final class ToolSearchAnswers {

	private ToolSearchAnswers() {
	}

	/** The search's result: a summary for the model, and the tools as structured content. */
	public static ObjectNode result(String query, List<ObjectNode> found) {
		ObjectNode result = JsonRpcParser.mapper().createObjectNode();
		StringBuilder text = new StringBuilder();
		String shown = query.length() > 80 ? query.substring(0, 80) + "…" : query;
		if (found.isEmpty()) {
			text.append("No tools match \"").append(shown).append("\". Try other words for what you need.");
		}
		else {
			text.append("Found ").append(found.size()).append(found.size() == 1 ? " tool" : " tools").append(" for \"")
				.append(shown).append("\"; ").append(found.size() == 1 ? "it is" : "they are")
				.append(" now available to call:");
			for (ObjectNode tool : found) {
				text.append("\n- ").append(ToolIndex.name(tool));
				if (!ToolIndex.description(tool).isBlank()) {
					text.append(": ").append(ToolIndex.description(tool).strip());
				}
			}
		}
		result.putArray("content").addObject().put("type", "text").put("text", text.toString());
		ArrayNode tools = result.putObject("structuredContent").putArray("tools");
		for (ObjectNode tool : found) {
			ObjectNode entry = tools.addObject().put("name", ToolIndex.name(tool));
			if (ToolIndex.title(tool) != null) {
				entry.put("title", ToolIndex.title(tool));
			}
			if (tool.path("description").isTextual()) {
				entry.put("description", ToolIndex.description(tool));
			}
		}
		result.put("isError", false);
		return result;
	}

	/** The search tool as {@code tools/list} shows it. */
	public static ObjectNode searchTool(int maxResults) {
		ObjectNode tool = JsonRpcParser.mapper().createObjectNode().put("name", ToolSearchPolicy.SEARCH_TOOL)
			.put("title", "Search available tools")
			.put("description", "Search this server's tools by what you want to do. The best matches (at most "
					+ maxResults + ") become available to call, and the tool list changes to "
					+ "include them.");
		ObjectNode schema = tool.putObject("inputSchema").put("type", "object");
		ObjectNode properties = schema.putObject("properties");
		properties.putObject("query").put("type", "string")
			.put("description", "The task or capability to find tools for, in plain words");
		properties.putObject("limit").put("type", "integer").put("minimum", 1)
			.put("description", "How many tools to return at most");
		schema.putArray("required").add("query");
		tool.putObject("annotations").put("readOnlyHint", true).put("openWorldHint", false);
		return tool;
	}

}
