package dev.mcprelay.interceptors;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.ResourceUpdatedNotification;
import dev.mcprelay.api.ServerNotification;
import dev.mcprelay.api.SubscriptionsListenRequest;
import dev.mcprelay.jsonrpc.McpMeta;
import reactor.core.publisher.Mono;

/**
 * What the policies make of subscriptions to resources, for {@link PolicyEnforcement}: a resource the caller may not
 * read is one it may not hear of either.
 * <ul>
 * <li>An MCP 2026-07-28 {@code subscriptions/listen} goes upstream without the URIs of its
 * {@code resourceSubscriptions} the caller may not read (each decided as a {@code resources/read} of it, before
 * anything goes upstream); the server's {@code notifications/subscriptions/acknowledged} of that listen names them
 * again, in the client's order, as a server names a URI it has no resource for, where the server acknowledged
 * resource subscriptions at all.</li>
 * <li>A {@code notifications/resources/updated} of a resource the caller may not read is dropped, on any stream (a
 * POST's, a listen's, the GET stream).</li>
 * </ul>
 */
final class PolicySubscriptions {

	/** The attribute, per listen's id, of the URIs left out of it: the client's list and the ones left out. */
	private static final String LEFT_OUT = PolicySubscriptions.class.getName() + ".leftOut.";

	private static final String ACKNOWLEDGED = "notifications/subscriptions/acknowledged";

	private PolicySubscriptions() {
	}

	private record LeftOut(List<String> asked, Set<String> refused) {
	}

	/** Leaves out of {@code listen} each URI {@code readable} refuses, remembering them for its acknowledgment. */
	static void leaveOut(SubscriptionsListenRequest listen, Predicate<String> readable) {
		List<String> asked = listen.resourceSubscriptions();
		Set<String> refused = new HashSet<>();
		listen.removeResourceSubscriptionsWhere(uri -> {
			boolean hidden = uri != null && !readable.test(uri);
			if (hidden) {
				refused.add(uri);
			}
			return hidden;
		});
		if (!refused.isEmpty() && listen.id() != null) {
			listen.context().attributes().put(LEFT_OUT + listen.id(), new LeftOut(asked, refused));
		}
	}

	/**
	 * A notification of the server's, as the caller may hear it: an update of a resource it may not read dropped; the
	 * acknowledgment of a listen the relay left URIs out of naming them again; anything else as it is.
	 */
	static Mono<Outcome> heard(ServerNotification notification, Predicate<String> readable) {
		if (notification instanceof ResourceUpdatedNotification updated) {
			return updated.uri() != null && !readable.test(updated.uri()) ? Outcome.drop() : Outcome.proceed();
		}
		if (ACKNOWLEDGED.equals(notification.method())) {
			acknowledgeAsAsked(notification);
		}
		return Outcome.proceed();
	}

	private static void acknowledgeAsAsked(ServerNotification acknowledgment) {
		ObjectNode params = acknowledgment.params();
		LeftOut leftOut = leftOut(acknowledgment.context(), params.path("_meta").get(McpMeta.SUBSCRIPTION_ID));
		if (leftOut == null || !(params.path("notifications").get("resourceSubscriptions") instanceof ArrayNode honored)) {
			return;
		}
		Set<String> named = new HashSet<>(leftOut.refused());
		honored.forEach(uri -> named.add(uri.asText()));
		ArrayNode asked = params.arrayNode();
		leftOut.asked().stream().filter(named::contains).forEach(asked::add);
		((ObjectNode) params.get("notifications")).set("resourceSubscriptions", asked);
		acknowledgment.replaceParams(params);
	}

	/** The URIs left out of the listen {@code subscription} names; of the only listen of the request without one. */
	private static LeftOut leftOut(CallContext context, JsonNode subscription) {
		if (subscription != null) {
			return context.attributes().get(LEFT_OUT + subscription) instanceof LeftOut found ? found : null;
		}
		List<LeftOut> all = new ArrayList<>();
		for (Map.Entry<String, Object> attribute : context.attributes().entrySet()) {
			if (attribute.getKey().startsWith(LEFT_OUT) && attribute.getValue() instanceof LeftOut found) {
				all.add(found);
			}
		}
		return all.size() == 1 ? all.get(0) : null;
	}

}
