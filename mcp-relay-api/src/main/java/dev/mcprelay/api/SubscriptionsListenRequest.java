package dev.mcprelay.api;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;

/**
 * A {@code subscriptions/listen} request (MCP 2026-07-28): the long-lived request whose stream carries the
 * notifications the client asks for in {@code params.notifications}, among them the updates of the resources it names
 * in {@code resourceSubscriptions}. It meets the catch-all request stage ({@link RequestInterceptor}) as this view.
 */
public final class SubscriptionsListenRequest extends McpRequest {

	public SubscriptionsListenRequest(CallContext context, com.fasterxml.jackson.databind.node.ObjectNode message) {
		super(context, message);
	}

	/** The URIs of the resources whose updates the client asks for, in its order; empty when it names none. */
	public List<String> resourceSubscriptions() {
		List<String> uris = new ArrayList<>();
		message().path("params").path("notifications").path("resourceSubscriptions").forEach(uri -> {
			if (uri.isTextual()) {
				uris.add(uri.textValue());
			}
		});
		return uris;
	}

	/**
	 * Leaves out of {@code resourceSubscriptions} each URI {@code filter} is true for (an entry that is not a string
	 * is tested as {@code null}), so that the server is never asked for its updates; the others keep their order.
	 */
	public void removeResourceSubscriptionsWhere(Predicate<? super String> filter) {
		JsonNode notifications = message().path("params").path("notifications");
		if (!(notifications.get("resourceSubscriptions") instanceof ArrayNode uris)) {
			return;
		}
		ArrayNode kept = message().arrayNode(uris.size());
		uris.forEach(uri -> {
			if (!filter.test(uri.isTextual() ? uri.textValue() : null)) {
				kept.add(uri);
			}
		});
		if (kept.size() != uris.size()) {
			((com.fasterxml.jackson.databind.node.ObjectNode) notifications).set("resourceSubscriptions", kept);
			markChanged();
		}
	}

}
