package dev.mcprelay.intercept;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcMessage;

/**
 * A message the client POSTed (a request, a notification or a response to a server request), as the
 * {@link UserRequestInterceptor}s see it before any other stage. Read-only.
 */
public final class ClientMessage extends MessageView {

	private final JsonRpcMessage.Kind kind;

	ClientMessage(CallContext context, JsonRpcMessage message) {
		super(context, message.node());
		this.kind = message.kind();
	}

	public JsonRpcMessage.Kind kind() {
		return kind;
	}

	/** The method of a request or notification; {@code null} for a response. */
	@Override
	public String method() {
		return text(message(), "method");
	}

	/** A copy of the params (an empty object when there are none). */
	public ObjectNode params() {
		return objectFieldCopy("params");
	}

}
