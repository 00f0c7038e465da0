package dev.mcprelay.interceptors;

import java.util.Map;
import java.util.function.Function;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.VirtualServerProperties;
import dev.mcprelay.policy.PublishedCatalogues;

/**
 * What a client gets for a tool, prompt or resource a policy refuses it, or that the server did not publish where a
 * rule reads it: the answer for one that does not exist, in the words of the endpoint the client addressed. Addressed
 * directly, a server's: {@code Unknown tool: <name>} (-32602), {@code Unknown prompt: <name>} (-32602),
 * {@code Resource not found} (-32002, {@code data.uri}). Through a virtual server, the virtual server's own answer
 * for a name none of its members has: the name as the client sent it (the member's prefix on it) and
 * {@code data.reason} {@code unknown_tool} or {@code unknown_prompt}. Nothing in it tells the client a policy exists;
 * the operator reads why in the access log ({@link RejectError#withLogReason}).
 */
final class PolicyRefusals {

	/** MCP's code for a resource that does not exist. */
	static final int RESOURCE_NOT_FOUND = -32002;

	/** The configuration a request runs on, whose virtual servers name what it addressed. */
	private final Function<CallContext, RelayProperties> propertiesOf;

	PolicyRefusals(Function<CallContext, RelayProperties> propertiesOf) {
		this.propertiesOf = propertiesOf;
	}

	/**
	 * A request the policies cannot decide, since the server's list {@code list} that they read could not be listed:
	 * refused (fails closed) with a reason of its own, never as a name that does not exist
	 * ({@link PublishedCatalogues.Unavailable#refusal}, the one refusal of every feature the policies decide).
	 */
	RejectError undecidable(CallContext context, String list, String why, String policy) {
		return PublishedCatalogues.Unavailable.refusal(context.server(), list, why, policy);
	}

	/** No tool {@code name} (the member's own name through a virtual server). */
	RejectError unknownTool(CallContext context, String name) {
		return unknown(context, "tool", name);
	}

	/** No prompt {@code name} (the member's own name through a virtual server). */
	RejectError unknownPrompt(CallContext context, String name) {
		return unknown(context, "prompt", name);
	}

	/** No resource {@code uri} (URIs are the same through a virtual server). */
	RejectError resourceNotFound(String uri) {
		return new RejectError(RESOURCE_NOT_FOUND, "Resource not found", Map.of("uri", uri == null ? "" : uri));
	}

	private RejectError unknown(CallContext context, String kind, String name) {
		VirtualServerProperties virtual = context.virtualServer() == null ? null
				: propertiesOf.apply(context).virtualServers().get(context.virtualServer());
		if (virtual == null) {
			return RejectError.invalidParams("Unknown " + kind + ": " + name);
		}
		String exposed = virtual.prefixOf(context.server()) + (name == null ? "" : name);
		return new RejectError(JsonRpcErrorCodes.INVALID_PARAMS, "Unknown " + kind + ": " + exposed,
				Map.of("reason", "unknown_" + kind));
	}

}
