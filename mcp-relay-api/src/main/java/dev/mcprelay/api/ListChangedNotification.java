package dev.mcprelay.api;

import java.util.Map;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * {@code notifications/tools/list_changed}, {@code notifications/prompts/list_changed} or
 * {@code notifications/resources/list_changed}: a list of the server changed, and the client may list it again.
 */
public final class ListChangedNotification extends ServerNotification {

	/** The list each method announces a change of. */
	static final Map<String, String> METHODS = Map.of("notifications/tools/list_changed", "tools",
			"notifications/prompts/list_changed", "prompts", "notifications/resources/list_changed", "resources");

	public ListChangedNotification(CallContext context, JsonRpcMessage message, boolean onStream) {
		super(context, message, onStream);
	}

	/** Which list changed: {@code tools}, {@code prompts} or {@code resources}. */
	public String list() {
		return METHODS.get(method());
	}

}
