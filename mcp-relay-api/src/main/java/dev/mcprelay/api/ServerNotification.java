package dev.mcprelay.api;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * A notification from the upstream server to the client, on a POST stream, the GET stream or in a JSON body, as the
 * {@link ServerNotificationInterceptor}s see it. MCP's common notifications come as typed views that extend this
 * one: {@link ProgressNotification}, {@link LoggingMessageNotification}, {@link ListChangedNotification},
 * {@link ResourceUpdatedNotification}; any other method comes as this view.
 *
 * <p>Any notification's params may be replaced as a whole ({@link #replaceParams}) or given a {@code _meta} entry;
 * typed views add finer setters. Fields no setter touches are relayed unchanged.
 */
public class ServerNotification extends ServerMessage {

	public ServerNotification(CallContext context, JsonRpcMessage message, boolean onStream) {
		super(context, message, onStream);
	}

	/** The view of {@code message}: its typed view when MCP defines one for its method. */
	public static ServerNotification of(CallContext context, JsonRpcMessage message, boolean onStream) {
		String method = message.method();
		return switch (method) {
			case ProgressNotification.METHOD -> new ProgressNotification(context, message, onStream);
			case LoggingMessageNotification.METHOD -> new LoggingMessageNotification(context, message, onStream);
			case ResourceUpdatedNotification.METHOD -> new ResourceUpdatedNotification(context, message, onStream);
			default -> ListChangedNotification.METHODS.containsKey(method)
					? new ListChangedNotification(context, message, onStream)
					: new ServerNotification(context, message, onStream);
		};
	}

}
