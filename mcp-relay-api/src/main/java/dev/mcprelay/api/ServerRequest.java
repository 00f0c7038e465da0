package dev.mcprelay.api;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * A request from the upstream server to the client ({@code sampling/createMessage}, {@code elicitation/create},
 * {@code roots/list}, ...), on a POST stream or the GET stream, as the server-request stages see it. This is the view
 * of a method without a typed view of its own (see {@link ServerRequestInterceptor}); the typed views extend it.
 *
 * <p>Any server request's params may be replaced as a whole ({@link #replaceParams}) or given a {@code _meta}
 * entry; typed views add finer setters. Setters write into the request as received, so fields no setter touches are
 * relayed unchanged.
 */
public class ServerRequest extends ServerMessage {

	public ServerRequest(CallContext context, JsonRpcMessage message, boolean onStream) {
		super(context, message, onStream);
	}

}
