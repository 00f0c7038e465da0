package dev.mcprelay.api;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * What the client sent, as the {@link UserRequestInterceptor}s see it before any other stage: a message it POSTed (a
 * request, a notification or a response to a server request), or a GET (opening the session's server-to-client
 * stream) or DELETE (ending the session), which carry no message. Read-only.
 */
public final class ClientMessage extends ClientView {

	private final JsonRpcMessage.Kind kind;

	private final String httpMethod;

	/** A message the client POSTed. */
	public ClientMessage(CallContext context, JsonRpcMessage message) {
		super(context, message.node());
		this.kind = message.kind();
		this.httpMethod = "POST";
	}

	/**
	 * A GET or DELETE: no message, so {@link #kind()}, {@link #method()} and {@link #id()} are {@code null}.
	 *
	 * @param httpMethod {@code GET} or {@code DELETE}
	 */
	public ClientMessage(CallContext context, String httpMethod) {
		super(context, JsonNodeFactory.instance.objectNode());
		this.kind = null;
		this.httpMethod = httpMethod;
	}

	/** What the message is; {@code null} for a GET or DELETE. */
	public JsonRpcMessage.Kind kind() {
		return kind;
	}

	/** {@code POST} for a message; {@code GET} to open the server-to-client stream; {@code DELETE} to end the session. */
	public String httpMethod() {
		return httpMethod;
	}

	/** Whether this is a GET or DELETE, which carries no message. */
	public boolean hasNoMessage() {
		return kind == null;
	}

}
