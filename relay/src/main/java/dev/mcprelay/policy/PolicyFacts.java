package dev.mcprelay.policy;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.api.Caller;
import dev.mcprelay.api.RequestHeaders;

/**
 * What a decision is about: one message (or one item of a list, decided as the request that would use it), its caller,
 * the server it goes to and the request it came in, as the policy environment shows them ({@link PolicyEnvironment}).
 * The variables an expression reads are made from it once per message, and only those an expression run on it reads
 * ({@link #variables()}).
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
 * @param headers the client's request headers; {@code null} for none. Those that can carry a credential are never shown to
 * an expression ({@link #CREDENTIAL_HEADERS})
 */
public record PolicyFacts(Caller caller, String server, String virtualServer, String method, boolean fromServer,
		String tool, Map<String, Object> annotations, String prompt, String resource, Map<String, Object> arguments,
		RequestHeaders headers) {

	/**
	 * The headers {@code request.headers} never holds, in any security mode and whatever a server's configuration
	 * copies: those the front door reads a credential from ({@code Authorization}, {@code X-Api-Key}) and the others
	 * that carry one ({@code Proxy-Authorization}, {@code Cookie}). An expression's error message can quote a value it
	 * read, and a policy has no business with a secret.
	 */
	static final Set<String> CREDENTIAL_HEADERS = credentialHeaders();

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
		return forItem(name != null && name.isTextual() ? name.textValue() : null, PublishedCatalogues.annotationsOf(tool),
				null, null);
	}

	private static final Map<String, Object> NO_TOOL = Map.of("name", "", "annotations", Map.of());

	private static final Map<String, Object> NO_PROMPT = Map.of("name", "");

	private static final Map<String, Object> NO_RESOURCE = Map.of("uri", "");

	/**
	 * The variables {@code caller}, {@code server}, {@code mcp} and {@code request} of these facts, each made when an
	 * expression first reads it: once per message, whatever the number of rules that read it, and never when none does.
	 */
	PolicyVariables variables() {
		return new PolicyVariables(this);
	}

	/**
	 * The variables, {@code caller}, {@code server} and {@code request} taken from {@code base} (the same for every item
	 * of a list: made once per list), {@code mcp} made of these facts.
	 */
	PolicyVariables variables(Base base) {
		return new PolicyVariables(this, base);
	}

	/** The variable {@code mcp}: the method, the direction, what the message names and a call's arguments. */
	Map<String, Object> mcpValue() {
		Map<String, Object> toolValue = tool == null && annotations == null ? NO_TOOL
				: Map.of("name", orEmpty(tool), "annotations", annotations == null ? Map.of() : annotations);
		Map<String, Object> promptValue = prompt == null ? NO_PROMPT : Map.of("name", prompt);
		Map<String, Object> resourceValue = resource == null ? NO_RESOURCE : Map.of("uri", resource);
		String directionValue = fromServer ? "server_to_client" : "client_to_server";
		return arguments == null
				? Map.of("method", orEmpty(method), "direction", directionValue, "tool", toolValue, "prompt", promptValue,
						"resource", resourceValue)
				: Map.of("method", orEmpty(method), "direction", directionValue, "tool", toolValue, "prompt", promptValue,
						"resource", resourceValue, "arguments", arguments);
	}

	/** The variable {@code server}: the server's id and the virtual server's. */
	Map<String, Object> serverValue() {
		return Map.of("id", orEmpty(server), "virtual", orEmpty(virtualServer));
	}

	/** The variable {@code request}: the headers an expression may read ({@link HeaderValues}). */
	Map<String, Object> requestValue() {
		return Map.of("headers", headersOf(headers));
	}

	/** The variables that do not depend on what a message names: {@code caller}, {@code server}, {@code request}. */
	Base base() {
		return new Base(callerOf(caller), serverValue(), requestValue());
	}

	/** The variables {@code caller}, {@code server} and {@code request}, as CEL values. */
	record Base(Map<String, Object> caller, Map<String, Object> server, Map<String, Object> request) {
	}

	/** The same facts for a call with {@code arguments} (as any mapper decoded them). */
	public PolicyFacts withArguments(Map<String, Object> arguments) {
		@SuppressWarnings("unchecked")
		Map<String, Object> values = arguments == null ? Map.of() : (Map<String, Object>) CelValues.of(arguments);
		return new PolicyFacts(caller, server, virtualServer, method, fromServer, tool, annotations, prompt, resource,
				values, headers);
	}

	/** The same facts for a call whose arguments, as CEL values, are {@code values}. */
	PolicyFacts withArgumentValues(Map<String, Object> values) {
		return new PolicyFacts(caller, server, virtualServer, method, fromServer, tool, annotations, prompt, resource,
				values, headers);
	}

	/**
	 * The same facts for {@code call}, with its arguments ({@link CallArguments}).
	 * @throws dev.mcprelay.api.RejectError (invalid params) for params that do not decode as a call's
	 */
	public PolicyFacts withArguments(dev.mcprelay.api.ToolsCallRequest call) {
		return new PolicyFacts(caller, server, virtualServer, method, fromServer, tool, annotations, prompt, resource,
				CallArguments.of(call), headers);
	}

	/** The same facts for another item of a list (another tool, prompt or resource, and its annotations). */
	public PolicyFacts forItem(String tool, Map<String, Object> annotations, String prompt, String resource) {
		return new PolicyFacts(caller, server, virtualServer, method, fromServer, tool, annotations, prompt, resource,
				arguments, headers);
	}

	static final int MAX_CALLERS = 4_096;

	/**
	 * Each caller's variable, made once per caller object rather than on every message (the front door makes one
	 * {@link Caller} per API key and per token it accepted and keeps); held weakly by the caller, at most
	 * {@value #MAX_CALLERS} callers.
	 */
	private static final Cache<Caller, Map<String, Object>> CALLERS = Caffeine.newBuilder()
		.weakKeys()
		.maximumSize(MAX_CALLERS)
		.executor(Runnable::run)
		.build();

	/** The variable {@code caller} of {@code caller}, made once per caller object. */
	static Map<String, Object> callerOf(Caller caller) {
		return CALLERS.get(caller == null ? Caller.ANONYMOUS : caller, PolicyFacts::callerValue);
	}

	private static Map<String, Object> callerValue(Caller who) {
		return Map.of("kind", who.kind().name().toLowerCase(Locale.ROOT), "id", orEmpty(who.id()), "client",
				who.kind() == Caller.Kind.API_KEY ? who.id() : "", "scopes", List.copyOf(who.scopes()), "claims",
				CelValues.of(who.claims()));
	}

	private static Map<String, String> headersOf(RequestHeaders headers) {
		return headers == null ? Map.of() : new HeaderValues(headers);
	}

	private static Set<String> credentialHeaders() {
		Set<String> names = new java.util.HashSet<>(Set.of("authorization", "proxy-authorization", "cookie", "x-api-key"));
		dev.mcprelay.security.CredentialHeaders.NAMES.forEach(name -> names.add(name.toLowerCase(Locale.ROOT)));
		return Set.copyOf(names);
	}

	private static String orEmpty(String value) {
		return value == null ? "" : value;
	}

}
