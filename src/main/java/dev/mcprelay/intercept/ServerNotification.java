package dev.mcprelay.intercept;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcMessage;

/**
 * A notification from the upstream server to the client, on a POST stream, the GET stream or in a JSON body, as the
 * {@link ServerNotificationInterceptor}s see it. MCP's common notifications come as typed views that extend this
 * one: {@link ProgressNotification}, {@link LoggingMessageNotification}, {@link ListChangedNotification},
 * {@link ResourceUpdatedNotification}; any other method comes as this view.
 *
 * <p>Any notification's params may be replaced as a whole ({@link #replaceParams}) or given a {@code _meta} entry;
 * typed views add finer setters. Fields no setter touches are relayed unchanged.
 */
public class ServerNotification extends MessageView {

	private final boolean onStream;

	ServerNotification(CallContext context, JsonRpcMessage message, boolean onStream) {
		super(context, message.node());
		this.onStream = onStream;
	}

	/** The view of {@code message}: its typed view when MCP defines one for its method. */
	static ServerNotification of(CallContext context, JsonRpcMessage message, boolean onStream) {
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

	/** Whether it came as an SSE event (on a POST or GET stream) rather than in a JSON body. */
	public boolean isOnStream() {
		return onStream;
	}

	/** The live params object, created when absent; setters of subclasses write through it. */
	ObjectNode liveParams() {
		return objectField("params");
	}

}
