package dev.mcprelay.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.modelcontextprotocol.spec.McpSchema;

/**
 * A {@code tools/call} request: the tool's name and its arguments, which interceptors may change.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/tools#calling-tools">MCP, calling
 * tools</a>
 */
public final class ToolsCallRequest extends McpRequest {

	public ToolsCallRequest(CallContext context, ObjectNode message) {
		super(context, message);
	}

	/** The name of the tool called. */
	public String toolName() {
		return text(message().path("params"), "name");
	}

	/** The names of the top-level arguments, in the order sent, read without decoding their values. */
	public List<String> argumentNames() {
		JsonNode arguments = message().path("params").path("arguments");
		if (!arguments.isObject()) {
			return List.of();
		}
		List<String> names = new ArrayList<>(arguments.size());
		arguments.fieldNames().forEachRemaining(names::add);
		return names;
	}

	/** A copy of the arguments, in the order sent; empty when there are none. */
	public Map<String, Object> arguments() {
		Map<String, Object> arguments = toSchema().arguments();
		return arguments == null ? new LinkedHashMap<>() : new LinkedHashMap<>(arguments);
	}

	/**
	 * The arguments read in place, without a copy ({@link JsonView}: read-only, each value decoded when read, in the
	 * order sent); empty when there are none. What {@link #arguments()} holds, but for its numbers, which are those of
	 * the message's parse ({@code BigDecimal} for any that is not an integer). Params that do not decode as a call's
	 * (a name that is not a string, {@code arguments} or {@code _meta} that is not an object) are decoded as
	 * {@link #arguments()} decodes them: refused as it refuses them, else a read-only copy of what it gives.
	 *
	 * @throws RejectError invalid params (-32602) for params that do not decode as a call's
	 */
	public Map<String, Object> argumentsView() {
		JsonNode params = message().path("params");
		JsonNode arguments = params.path("arguments");
		if (params.path("name").isTextual() && objectOrNothing(arguments) && objectOrNothing(params.path("_meta"))) {
			return JsonView.fieldsOf(arguments);
		}
		return Collections.unmodifiableMap(arguments());
	}

	private static boolean objectOrNothing(JsonNode node) {
		return node.isObject() || node.isMissingNode() || node.isNull();
	}

	/** The params decoded: name, arguments and {@code _meta}. */
	public McpSchema.CallToolRequest toSchema() {
		return paramsAs(McpSchema.CallToolRequest.class);
	}

	/** Replaces all arguments. */
	public void setArguments(Map<String, ?> arguments) {
		liveParams().set("arguments", toJson(arguments));
		markChanged();
	}

	/** Sets one argument, adding it when absent; other arguments are untouched. */
	public void setArgument(String name, Object value) {
		liveParams().withObjectProperty("arguments").set(name, toJson(value));
		markChanged();
	}

	/**
	 * Injects one argument on the server's behalf: it replaces a client's argument of the same name (the server
	 * wins), and a reserved name ({@code arguments.reserved-prefix}) is allowed, since the relay's argument policy
	 * checks only what the client sent, before interceptors of default order run.
	 */
	public void injectArgument(String name, Object value) {
		setArgument(name, value);
	}

	/** Removes one argument; other arguments are untouched. */
	public void removeArgument(String name) {
		JsonNode arguments = message().path("params").get("arguments");
		if (arguments instanceof ObjectNode object && object.remove(name) != null) {
			markChanged();
		}
	}

}
