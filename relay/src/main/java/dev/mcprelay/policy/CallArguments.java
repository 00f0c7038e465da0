package dev.mcprelay.policy;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.ToolsCallRequest;

/**
 * A {@code tools/call}'s arguments as the policies read them ({@code mcp.arguments}, as {@link CelValues}), made from
 * the call's tree, with no typed decoding in between. Exactly what {@link ToolsCallRequest#arguments()} decodes,
 * converted: the params decode as the MCP schema's {@code CallToolRequest} whenever {@code arguments} and
 * {@code _meta} are each absent, {@code null} or an object (the name, a string, was checked before; other fields are
 * ignored), and CEL sees the same values either way (integers as {@code long}, other numbers as {@code double}, a JSON
 * {@code null} left out). Params of another shape are decoded as the call decodes them, so that what it refuses
 * ({@code -32602}, invalid params) is refused as before.
 */
final class CallArguments {

	private CallArguments() {
	}

	/** The arguments of {@code call}, as CEL values; empty when it has none. */
	static Map<String, Object> of(ToolsCallRequest call) {
		JsonNode params = call.json().path("params");
		JsonNode arguments = params.path("arguments");
		if (objectOrNothing(arguments) && objectOrNothing(params.path("_meta"))) {
			return CelValues.fieldsOf(arguments);
		}
		@SuppressWarnings("unchecked")
		Map<String, Object> decoded = (Map<String, Object>) CelValues.of(call.arguments());
		return decoded;
	}

	private static boolean objectOrNothing(JsonNode node) {
		return node.isObject() || node.isMissingNode() || node.isNull();
	}

}
