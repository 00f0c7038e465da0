package dev.mcprelay.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * A message from the upstream server, as the {@link RemoteMessageInterceptor}s see it: a JSON response body, or the
 * message of one SSE event on a POST or GET stream (a response, a server-to-client request or a notification).
 * Read-only.
 */
public final class RemoteMessage extends MessageView {

	private final JsonRpcMessage.Kind kind;

	private final McpRequest request;

	private final boolean onStream;

	public RemoteMessage(CallContext context, JsonRpcMessage message, McpRequest request, boolean onStream) {
		super(context, message.node());
		this.kind = message.kind();
		this.request = request;
		this.onStream = onStream;
	}

	public JsonRpcMessage.Kind kind() {
		return kind;
	}

	/**
	 * The method of a server request or notification; for a response, the method of the request it answers, or
	 * {@code null} when it answers none of this client request.
	 */
	@Override
	public String method() {
		return request != null ? request.method() : text(message(), "method");
	}

	/** For a response to a request of this client request, that request; otherwise {@code null}. */
	public McpRequest request() {
		return request;
	}

	/** Whether the message came as an SSE event (on a POST or GET stream) rather than as a JSON body. */
	public boolean isOnStream() {
		return onStream;
	}

}
