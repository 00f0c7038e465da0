package dev.mcprelay.policy;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.mcprelay.api.Caller;
import dev.mcprelay.api.RequestHeaders;

/**
 * What a decision is about: one message (or one item of a list, decided as the request that would use it), its caller,
 * the server it goes to and the request it came in, as the policy environment shows them ({@link PolicyEnvironment}).
 * The variables an expression reads are made from it once ({@link #activation()}), and only when an expression is run.
 *
 * @param caller who asks
 * @param server the configured server the message goes to or comes from (for a virtual server, the member)
 * @param virtualServer the virtual server it came through, or {@code null}
 * @param method the MCP method ({@code tools/call} for a listed tool)
 * @param fromServer whether it is a server's request to the client (sampling, elicitation, roots)
 * @param tool the tool it names, or {@code null}
 * @param annotations the tool's annotations as the server published them; {@code null} when the relay does not know
 * the tool's definition (a rule that reads them then fails closed)
 * @param prompt the prompt it names, or {@code null}
 * @param resource the resource URI it names, or {@code null}
 * @param arguments a call's arguments; {@code null} when not known yet (an item being listed)
 * @param headers the client's request headers, the caller's credential not among them; {@code null} for none
 */
public record PolicyFacts(Caller caller, String server, String virtualServer, String method, boolean fromServer,
		String tool, Map<String, Object> annotations, String prompt, String resource, Map<String, Object> arguments,
		RequestHeaders headers) {

	/**
	 * The facts of a message of {@code method} in {@code context}'s request (its caller, server, virtual server and
	 * headers), naming nothing yet.
	 *
	 * @param fromServer whether it is a server's request to the client
	 */
	public static PolicyFacts of(dev.mcprelay.api.CallContext context, String method, boolean fromServer) {
		return new PolicyFacts(context.caller(), context.server(), context.virtualServer(), method, fromServer, null,
				null, null, null, null, context.headers());
	}

	/** The same facts for the tool {@code tool}, its definition as a server lists it (name and annotations). */
	public PolicyFacts forTool(com.fasterxml.jackson.databind.JsonNode tool) {
		com.fasterxml.jackson.databind.JsonNode name = tool.get("name");
		return forItem(name != null && name.isTextual() ? name.textValue() : null, ToolDefinitions.annotationsOf(tool),
				null, null);
	}

	/** The variables {@code caller}, {@code server}, {@code mcp} and {@code request}, made anew on each call. */
	Map<String, Object> activation() {
		Map<String, Object> mcp = new HashMap<>(8);
		mcp.put("method", orEmpty(method));
		mcp.put("direction", fromServer ? "server_to_client" : "client_to_server");
		mcp.put("tool", Map.of("name", orEmpty(tool), "annotations", annotations == null ? Map.of() : annotations));
		mcp.put("prompt", Map.of("name", orEmpty(prompt)));
		mcp.put("resource", Map.of("uri", orEmpty(resource)));
		if (arguments != null) {
			mcp.put("arguments", arguments);
		}
		return Map.of("caller", callerOf(caller), "server",
				Map.of("id", orEmpty(server), "virtual", orEmpty(virtualServer)), "mcp", mcp, "request",
				Map.of("headers", headersOf(headers)));
	}

	/** The same facts for a call with {@code arguments} (as any mapper decoded them). */
	public PolicyFacts withArguments(Map<String, Object> arguments) {
		@SuppressWarnings("unchecked")
		Map<String, Object> values = arguments == null ? Map.of() : (Map<String, Object>) CelValues.of(arguments);
		return new PolicyFacts(caller, server, virtualServer, method, fromServer, tool, annotations, prompt, resource,
				values, headers);
	}

	/** The same facts for another item of a list (another tool, prompt or resource, and its annotations). */
	public PolicyFacts forItem(String tool, Map<String, Object> annotations, String prompt, String resource) {
		return new PolicyFacts(caller, server, virtualServer, method, fromServer, tool, annotations, prompt, resource,
				arguments, headers);
	}

	private static Map<String, Object> callerOf(Caller caller) {
		Caller who = caller == null ? Caller.ANONYMOUS : caller;
		return Map.of("kind", who.kind().name().toLowerCase(Locale.ROOT), "id", orEmpty(who.id()), "client",
				who.kind() == Caller.Kind.API_KEY ? who.id() : "", "scopes", List.copyOf(who.scopes()), "claims",
				CelValues.of(who.claims()));
	}

	private static Map<String, String> headersOf(RequestHeaders headers) {
		if (headers == null) {
			return Map.of();
		}
		Map<String, String> byName = new HashMap<>();
		for (String name : headers.names()) {
			List<String> values = headers.get(name);
			byName.put(name.toLowerCase(Locale.ROOT), values == null ? "" : String.join(", ", values));
		}
		return byName;
	}

	private static String orEmpty(String value) {
		return value == null ? "" : value;
	}

}
