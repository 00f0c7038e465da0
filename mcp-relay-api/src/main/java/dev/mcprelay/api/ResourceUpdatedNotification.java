package dev.mcprelay.api;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * {@code notifications/resources/updated}: a resource the client subscribed to changed.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions">MCP,
 * resource subscriptions</a>
 */
public final class ResourceUpdatedNotification extends ServerNotification {

	static final String METHOD = "notifications/resources/updated";

	public ResourceUpdatedNotification(CallContext context, JsonRpcMessage message, boolean onStream) {
		super(context, message, onStream);
	}

	/** The URI of the resource that changed. */
	public String uri() {
		return text(message().path("params"), "uri");
	}

}
