package dev.mcprelay.intercept;

import dev.mcprelay.jsonrpc.JsonRpcMessage;

/**
 * A message the client POSTed (a request, a notification or a response to a server request), as the
 * {@link UserRequestInterceptor}s see it before any other stage. Read-only.
 */
public final class ClientMessage extends ClientView {

	private final JsonRpcMessage.Kind kind;

	ClientMessage(CallContext context, JsonRpcMessage message) {
		super(context, message.node());
		this.kind = message.kind();
	}

	public JsonRpcMessage.Kind kind() {
		return kind;
	}

}
