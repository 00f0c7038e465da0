package dev.mcprelay.bridge;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.McpMeta;
import dev.mcprelay.sse.SseEventWriter;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A 2026-07-28 client's {@code subscriptions/listen} to a 2025-only server (direction 2 of the bridge), served by the
 * GET stream of the upstream session the relay keeps for the client ({@link UpstreamSessions}). The relay honours what
 * the client asks for and the server's capabilities offer ({@code toolsListChanged}, {@code promptsListChanged},
 * {@code resourcesListChanged}: the server announces {@code listChanged}; {@code resourceSubscriptions}: it announces
 * {@code resources.subscribe}, and the relay sends {@code resources/subscribe} in the session for each URI), opens the
 * session's GET stream, and answers with an event stream: first {@code notifications/subscriptions/acknowledged} naming
 * what is honoured, then each notification of the GET stream that the subscription covers (a list change it asked
 * for, {@code notifications/resources/updated} of a URI it subscribed to), with the subscription's id in its
 * {@code _meta}; what else the server sends there is not the client's (a request is answered to the server with an
 * error, as on a call's stream), but a list change it did not ask for is still heard by the relay
 * ({@link UnrelayedListChanges}), as every one it relays is. The stream ends when the GET stream ends (the client
 * sees a subscription that ended without its result, and listens again) or when the client goes away, which closes
 * the GET stream and
 * unsubscribes the URIs. The acknowledgement goes once the GET is written, before the server answers it (a server may
 * hold a quiet stream's headers back); a server that answers it with another status than a stream (405: it offers none; 409: the
 * session's stream is already open, for another client of the session or on another replica) ends the listen with a
 * JSON-RPC error ({@code listen_not_available}); after a 409 the URIs it subscribed stay subscribed, since the listen
 * that holds the stream subscribed them too.
 */
final class SessionEraListen {

	private static final List<String> LISTS = List.of("tools", "prompts", "resources");

	/** The list-change notifications, by the filter key that asks for each. */
	private static final Map<String, String> LIST_CHANGES = Map.of("notifications/tools/list_changed",
			"toolsListChanged", "notifications/prompts/list_changed", "promptsListChanged",
			"notifications/resources/list_changed", "resourcesListChanged");

	private final UpstreamTransport server;

	private final String serverId;

	private final long maxBytes;

	private final UnrelayedListChanges unrelayed;

	SessionEraListen(UpstreamTransport server, String serverId, long maxBytes, UnrelayedListChanges unrelayed) {
		this.server = server;
		this.serverId = serverId;
		this.maxBytes = maxBytes;
		this.unrelayed = unrelayed;
	}

	/**
	 * Serves {@code listen} (the client's request, its id and filter) from {@code session}'s GET stream.
	 *
	 * @param refuse what answers a request the server sends on the stream (to the server, with an error)
	 */
	Mono<Void> listen(UpstreamRequest request, ObjectNode listen, UpstreamSession session, Runnable onWritten,
			Function<ObjectNode, Flux<byte[]>> refuse, Function<UpstreamResponse, Mono<Void>> handler) {
		JsonNode id = listen.get("id");
		JsonNode asked = listen.path("params").path("notifications");
		ObjectNode honored = JsonNodeFactory.instance.objectNode();
		for (String list : LISTS) {
			if (asked.path(list + "ListChanged").asBoolean(false)
					&& session.capabilities().path(list).path("listChanged").asBoolean(false)) {
				honored.put(list + "ListChanged", true);
			}
		}
		List<String> uris = session.capabilities().path("resources").path("subscribe").asBoolean(false)
				? JsonTexts.of(asked.path("resourceSubscriptions")) : List.of();
		if (!uris.isEmpty()) {
			honored.set("resourceSubscriptions", JsonNodeFactory.instance.arrayNode().addAll(
					uris.stream().map(JsonNodeFactory.instance::textNode).toList()));
		}
		BridgedAnswers.Turn turn = new BridgedAnswers.Turn(notification -> subscribed(notification, id), message -> {
			if (message.has("method") && message.has("id")) {
				return refuse.apply(message);
			}
			return covers(honored, message) ? null : notCovered(message);
		}, false);
		// acknowledged once the GET is written: a server may hold a quiet stream's headers back until it has something
		Sinks.Empty<Void> written = Sinks.empty();
		// a 409: the session's stream is another listen's, whose resources stay subscribed when this one ends
		java.util.concurrent.atomic.AtomicBoolean another = new java.util.concurrent.atomic.AtomicBoolean();
		Runnable getWritten = () -> {
			onWritten.run();
			written.tryEmitEmpty();
		};
		Flux<byte[]> stream = BridgedAnswers.ofExchange(
				answer -> server.receive(SessionEraRequests.stream(request, session, getWritten), answer), response -> {
					MediaType type = response.contentType();
					if (response.statusCode().is2xxSuccessful() && type != null
							&& MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)) {
						return BridgedAnswers.asEvents(response, serverId, maxBytes, turn);
					}
					int status = response.statusCode().value();
					another.set(status == 409);
					return response.releaseBody().thenMany(Flux.just(SseEventWriter.message(PerRequestBridge.error(id,
							-32603, "MCP server '" + serverId + "', which speaks only session-era MCP, offers no "
									+ "stream to listen to for this client (HTTP " + status + " to its GET)",
							"listen_not_available").toString())));
				});
		return Flux.fromIterable(uris)
			.concatMap(uri -> resources(request, session, "resources/subscribe", uri))
			.then(Mono.defer(() -> handler.apply(LocalUpstreamResponse.eventStream(new HttpHeaders(),
					Flux.merge(written.asMono().thenMany(Flux.just(acknowledgement(id, honored))), stream)))))
			.doFinally(signal -> Flux.fromIterable(another.get() ? List.<String>of() : uris)
				.concatMap(uri -> resources(request, session, "resources/unsubscribe", uri))
				.subscribe());
	}

	/** Whether the subscription ({@code honored}) covers {@code message}, a notification of the GET stream. */
	private static boolean covers(ObjectNode honored, ObjectNode message) {
		String method = message.path("method").asText();
		String listChange = LIST_CHANGES.get(method);
		if (listChange != null) {
			return honored.path(listChange).asBoolean(false);
		}
		if ("notifications/resources/updated".equals(method)) {
			String uri = message.path("params").path("uri").asText();
			for (JsonNode subscribed : honored.path("resourceSubscriptions")) {
				if (subscribed.asText().equals(uri)) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * A message of the GET stream the subscription does not cover: never the client's; a list change is heard by the
	 * relay all the same ({@link UnrelayedListChanges}).
	 */
	private Flux<byte[]> notCovered(ObjectNode message) {
		String method = message.path("method").asText();
		if (LIST_CHANGES.containsKey(method)) {
			unrelayed.heard(serverId, method);
		}
		return Flux.empty();
	}

	/** {@code notification} as one of the subscription {@code id}'s: its id in {@code _meta}. */
	private static ObjectNode subscribed(ObjectNode notification, JsonNode id) {
		ObjectNode params = notification.get("params") instanceof ObjectNode given ? given
				: notification.putObject("params");
		ObjectNode meta = params.get("_meta") instanceof ObjectNode given ? given : params.putObject("_meta");
		meta.set(McpMeta.SUBSCRIPTION_ID, id);
		return notification;
	}

	private static byte[] acknowledgement(JsonNode id, ObjectNode honored) {
		ObjectNode acknowledged = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0")
			.put("method", "notifications/subscriptions/acknowledged");
		ObjectNode params = acknowledged.putObject("params");
		params.set("notifications", honored);
		params.putObject("_meta").set(McpMeta.SUBSCRIPTION_ID, id);
		return SseEventWriter.message(acknowledged.toString());
	}

	/** {@code resources/subscribe} or {@code resources/unsubscribe} of {@code uri} in the session; its answer released. */
	private Mono<Void> resources(UpstreamRequest request, UpstreamSession session, String method, String uri) {
		ObjectNode message = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0")
			.put("id", "mcp-relay-" + method.replace('/', '-') + "-" + dev.mcprelay.session.SessionIds.mint())
			.put("method", method);
		message.putObject("params").put("uri", uri);
		return server.send(SessionEraRequests.inSession(request, message, session, null), UpstreamResponse::releaseBody)
			.onErrorResume(failed -> Mono.empty());
	}

}
