package dev.mcprelay.bridge;

import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
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
 * {@code resources.subscribe}, and the relay subscribes to each URI in the session, {@link ResourceSubscriptions}:
 * at most {@value ResourceSubscriptions#MAX_URIS}, bounded in flight), opens the session's GET stream, and answers
 * with an event stream: first {@code notifications/subscriptions/acknowledged} naming what is honoured, then each
 * notification of the GET stream that the subscription covers (a list change it asked for,
 * {@code notifications/resources/updated} of a URI it subscribed to), with the subscription's id in its
 * {@code _meta}; what else the server sends there is not the client's (a request is answered to the server with an
 * error, as on a call's stream), but a list change it did not ask for is still heard by the relay
 * ({@link UnrelayedListChanges}), as every one it relays is. The stream ends when the GET stream ends (the client
 * sees a subscription that ended without its result, and listens again) or when the client goes away, which closes
 * the GET stream and unsubscribes what was subscribed. The acknowledgement goes once the GET is written, before the
 * server answers it (a server may hold a quiet stream's headers back) and without waiting for the subscribes. A GET
 * answered 404 or 400 in a session the server forgot opens the session again, once ({@link ForgottenSessions#replaced},
 * which ends the one replaced), and the listen goes on there; one answered with another status than a stream (405, or
 * a 404 in a session the server knows: it offers none, which is remembered for the session a while,
 * {@link StreamlessSessions}, so that later listens in it are refused at once, nothing sent; 409: the session's stream is already open, for another
 * client of the session or on another replica) ends the listen with a JSON-RPC error ({@code listen_not_available};
 * {@code listen_failed} for any other status); after a 409 the URIs it subscribed stay subscribed, since the listen
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

	private final java.time.Duration timeout;

	/** The sessions whose server offers no GET stream: a listen in one is refused at once. */
	private final StreamlessSessions streamless = new StreamlessSessions();

	/**
	 * @param timeout how long the unsubscribes of a listen that ended may take: the server's
	 * {@code timeouts.non-streaming}
	 */
	SessionEraListen(UpstreamTransport server, String serverId, long maxBytes, UnrelayedListChanges unrelayed,
			java.time.Duration timeout) {
		this.server = server;
		this.timeout = timeout;
		this.serverId = serverId;
		this.maxBytes = maxBytes;
		this.unrelayed = unrelayed;
	}

	/**
	 * Serves {@code listen} (the client's request, its id and filter) from {@code session}'s GET stream; a listen that
	 * asks more than {@value ResourceSubscriptions#MAX_URIS} resources is refused (-32602,
	 * {@code too_many_resource_subscriptions}), nothing sent.
	 *
	 * @param client the client the upstream session is for ({@link ModernClient#key}): it keys what is remembered of a
	 * server that keeps no sessions ({@link StreamlessSessions})
	 * @param refuse what answers a request the server sends on the stream of a session (to the server, with an error)
	 * @param replaced the session opened again in place of one whose GET the server answered with a status (404, or a
	 * 400 when it forgot the session: {@link ForgottenSessions#replaced}); empty when it is not to be opened again
	 */
	Mono<Void> listen(UpstreamRequest request, ObjectNode listen, String client, UpstreamSession session,
			Runnable onWritten,
			BiFunction<UpstreamSession, ObjectNode, Flux<byte[]>> refuse,
			BiFunction<Integer, UpstreamSession, Mono<UpstreamSession>> replaced,
			Function<UpstreamResponse, Mono<Void>> handler) {
		JsonNode id = listen.get("id");
		JsonNode asked = listen.path("params").path("notifications");
		if (asked.path("resourceSubscriptions").size() > ResourceSubscriptions.MAX_URIS) {
			onWritten.run();
			return handler.apply(LocalUpstreamResponse.json(new HttpHeaders(), PerRequestBridge.error(id, -32602,
					"A listen through the relay to MCP server '" + serverId + "' subscribes at most "
							+ ResourceSubscriptions.MAX_URIS + " resources (this one asks "
							+ asked.path("resourceSubscriptions").size() + ")", "too_many_resource_subscriptions")
				.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
		}
		if (streamless.offersNone(session, client)) {
			// the server answered a GET in this session 405, or 404 while it knew the session: nothing to open again
			onWritten.run();
			return handler.apply(LocalUpstreamResponse.json(new HttpHeaders(), unavailable(id, true, "an earlier "
					+ "GET in its session was refused").toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
		}
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
		// acknowledged once the GET is written: a server may hold a quiet stream's headers back until it has something
		Sinks.Empty<Void> written = Sinks.empty();
		Runnable getWritten = () -> {
			onWritten.run();
			written.tryEmitEmpty();
		};
		Listening listening = new Listening(request, id, client, honored, getWritten, refuse, replaced,
				new ResourceSubscriptions(server, request, uris, timeout));
		// the subscribes go alongside the stream, not before the acknowledgement: the client hears at once what is
		// honoured, and cancelling the listen cancels those not answered yet
		return handler.apply(LocalUpstreamResponse.eventStream(new HttpHeaders(), Flux.merge(
				written.asMono().thenMany(Flux.just(acknowledgement(id, honored))),
				listening.subscriptions.subscribe(session).thenMany(Flux.<byte[]>empty()),
				stream(listening, session, true))
			.doFinally(signal -> listening.subscriptions.release(listening.another))));
	}

	/**
	 * The events of {@code session}'s GET stream for the listen; a 404 or 400 in a session the server forgot opens the
	 * session again, once ({@code mayReopen}), subscribes there and goes on in it; any other status than a stream ends
	 * the listen with an error ({@link #refusedIn}).
	 */
	private Flux<byte[]> stream(Listening listening, UpstreamSession session, boolean mayReopen) {
		BridgedAnswers.Turn turn = new BridgedAnswers.Turn(notification -> subscribed(notification, listening.id),
				message -> {
					if (message.has("method") && message.has("id")) {
						return listening.refuse.apply(session, message);
					}
					return covers(listening.honored, message) ? null : notCovered(message);
				}, false);
		Flux<byte[]> get = BridgedAnswers.ofExchange(answer -> server.receive(
				SessionEraRequests.stream(listening.request, session, listening.getWritten), answer), response -> {
					MediaType type = response.contentType();
					if (response.statusCode().is2xxSuccessful() && type != null
							&& MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)) {
						return BridgedAnswers.asEvents(response, serverId, maxBytes, turn);
					}
					return response.releaseBody().thenMany(Flux.error(new GetRefused(response.statusCode().value())));
				});
		return get.onErrorResume(GetRefused.class, refused -> {
			int status = refused.status;
			if (mayReopen && (status == 404 || status == 400)) {
				return listening.replaced.apply(status, session)
					.map(java.util.Optional::of)
					.defaultIfEmpty(java.util.Optional.empty())
					.flatMapMany(reopened -> reopened.isPresent()
							? Flux.merge(listening.subscriptions.subscribe(reopened.get()).thenMany(Flux.<byte[]>empty()),
									stream(listening, reopened.get(), false))
							: Flux.just(refusedIn(session, listening, status)));
			}
			listening.another = status == 409;
			return Flux.just(refusedIn(session, listening, status));
		});
	}

	/**
	 * The error that ends a listen whose GET the server answered in {@code session} with {@code status}, not a stream
	 * (and did not forget the session): a 405, and a 404 in a session the server knows, mean it offers no stream, which
	 * is remembered for the session, or for the client of a server without sessions, a while ({@link StreamlessSessions});
	 * a 409 that the session's stream is another's.
	 */
	private byte[] refusedIn(UpstreamSession session, Listening listening, int status) {
		boolean none = status == 405 || status == 404;
		if (none) {
			streamless.remember(session, listening.client);
		}
		return SseEventWriter.message(unavailable(listening.id, none || status == 409, "HTTP "
				+ status + " to its GET").toString());
	}

	/** The error that ends a listen: {@code listen_not_available} ({@code none}), else {@code listen_failed}. */
	private ObjectNode unavailable(JsonNode id, boolean none, String what) {
		return PerRequestBridge.error(id, -32603, none ? "MCP server '" + serverId + "', which speaks only session-era "
				+ "MCP, offers no stream to listen to for this client (" + what + ")" : "MCP server '" + serverId
						+ "' answered the GET stream of this client's session with " + what,
				none ? "listen_not_available" : "listen_failed");
	}

	/** One listen's request, filter and subscriptions, across the sessions it is served in. */
	private static final class Listening {

		final UpstreamRequest request;

		final JsonNode id;

		/** The client the upstream session is for ({@link ModernClient#key}). */
		final String client;

		final ObjectNode honored;

		final Runnable getWritten;

		final BiFunction<UpstreamSession, ObjectNode, Flux<byte[]>> refuse;

		final BiFunction<Integer, UpstreamSession, Mono<UpstreamSession>> replaced;

		final ResourceSubscriptions subscriptions;

		/** A 409: the session's stream is another listen's, whose resources stay subscribed when this one ends. */
		volatile boolean another;

		Listening(UpstreamRequest request, JsonNode id, String client, ObjectNode honored, Runnable getWritten,
				BiFunction<UpstreamSession, ObjectNode, Flux<byte[]>> refuse,
				BiFunction<Integer, UpstreamSession, Mono<UpstreamSession>> replaced,
				ResourceSubscriptions subscriptions) {
			this.request = request;
			this.id = id;
			this.client = client;
			this.honored = honored;
			this.getWritten = getWritten;
			this.refuse = refuse;
			this.replaced = replaced;
			this.subscriptions = subscriptions;
		}

	}

	/** The server answered a listen's GET with {@link #status}, not a stream. */
	private static final class GetRefused extends RuntimeException {

		final int status;

		GetRefused(int status) {
			super(null, null, false, false);
			this.status = status;
		}

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

}
