package dev.mcprelay.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;

/**
 * A request from the client, as the per-method request stages see it; also the view of a method that has no typed
 * view of its own (see {@link RequestInterceptor}). Typed views for the common MCP methods extend it.
 *
 * <p>The only change every request allows is a {@code params._meta} entry ({@link #putMeta}), which is how MCP
 * carries context a server may read without it being a tool argument.
 */
public class McpRequest extends ClientView {

	public McpRequest(CallContext context, ObjectNode message) {
		super(context, message);
	}

	/** Sets {@code params._meta.<key>} to {@code value} (any JSON-convertible value). */
	public void putMeta(String key, Object value) {
		objectField("params").withObjectProperty("_meta").set(key, toJson(value));
		markChanged();
	}

	/** The params decoded as an MCP schema type; a mismatch rejects the request as invalid params (-32602). */
	<T> T paramsAs(Class<T> type) {
		return decode(message().path("params"), type, problem -> new RejectError(JsonRpcErrorCodes.INVALID_PARAMS,
				"Invalid params for " + method() + ": " + problem));
	}

	/** The live params object, created when absent; setters of subclasses write through it. */
	ObjectNode liveParams() {
		return objectField("params");
	}

}
