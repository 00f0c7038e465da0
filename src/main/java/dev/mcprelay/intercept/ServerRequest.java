package dev.mcprelay.intercept;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcMessage;

/**
 * A request from the upstream server to the client ({@code sampling/createMessage}, {@code elicitation/create},
 * {@code roots/list}, ...), on a POST stream or the GET stream, as the server-request stages see it. This is the view
 * of a method without a typed view of its own (see {@link ServerRequestInterceptor}); the typed views extend it.
 *
 * <p>Any server request's params may be replaced as a whole ({@link #replaceParams}) or given a {@code _meta}
 * entry; typed views add finer setters. Setters write into the request as received, so fields no setter touches are
 * relayed unchanged.
 */
public class ServerRequest extends MessageView {

	private final boolean onStream;

	ServerRequest(CallContext context, JsonRpcMessage message, boolean onStream) {
		super(context, message.node());
		this.onStream = onStream;
	}

	@Override
	public String method() {
		return text(message(), "method");
	}

	/** A copy of the params; an empty object when there are none. */
	public ObjectNode params() {
		return objectFieldCopy("params");
	}

	/** Replaces the params as a whole (a {@code JsonNode}, a {@code Map} or an MCP schema record). */
	public void replaceParams(Object params) {
		message().set("params", toJson(params));
		markChanged();
	}

	/** Sets {@code params._meta.<key>} to {@code value} (any JSON-convertible value). */
	public void putMeta(String key, Object value) {
		objectField("params").withObjectProperty("_meta").set(key, toJson(value));
		markChanged();
	}

	/** Whether it came on a stream of the client's POST, rather than on the GET stream. */
	public boolean isOnStream() {
		return onStream;
	}

	/** The live params object, created when absent; setters of subclasses write through it. */
	ObjectNode liveParams() {
		return objectField("params");
	}

	/** The params decoded as an MCP schema type; a mismatch is the upstream's fault (-32603). */
	<T> T paramsAs(Class<T> type) {
		return decode(message().path("params"), type, problem -> new RejectError(
				dev.mcprelay.jsonrpc.JsonRpcErrorCodes.INVALID_PARAMS,
				"Invalid params for " + method() + " from the server: " + problem));
	}

}
