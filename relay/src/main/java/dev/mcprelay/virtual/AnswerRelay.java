package dev.mcprelay.virtual;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.sse.SseEvent;
import dev.mcprelay.sse.SseEventWriter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Relays a member's answer to the client of a virtual server as the member's relay wrote it: status, headers (the
 * virtual session's id in place of the member's) and body, a JSON body byte for byte; an event stream event by event,
 * where a request of the member's gets an id of the virtual server's ({@link MemberIds}) and an event id becomes the
 * member's position ({@link MemberIds#eventId}); every other event passes unchanged.
 */
@Component
class AnswerRelay {

	/** Member answer headers the client does not get as they are. */
	private static final Set<String> NOT_RELAYED = Set.of("mcp-session-id", "content-length", "transfer-encoding",
			"connection");

	private final MemberIds ids;

	private final VirtualToolSearch toolSearch;

	private final ListCache listCache;

	AnswerRelay(MemberIds ids, VirtualToolSearch toolSearch, ListCache listCache) {
		this.ids = ids;
		this.toolSearch = toolSearch;
		this.listCache = listCache;
	}

	Mono<Void> relay(VirtualCall call, MemberAnswer answer) {
		RelayResponse response = call.exchange().response();
		call.exchange().record().forwarded(answer.status().value());
		response.status(answer.status());
		answer.headers().forEach((name, values) -> {
			if (!NOT_RELAYED.contains(name.toLowerCase(Locale.ROOT))) {
				response.headers().set(name, values);
			}
		});
		if (call.session() != null) {
			response.headers().set("Mcp-Session-Id", call.session().id());
		}
		if (!answer.isEventStream()) {
			return response.write(answer.body());
		}
		Flux<byte[]> events = MemberMessages.events(answer).map(event -> rewrite(call, answer.member(), event));
		return writeEvents(response, events);
	}

	/** The event as the client gets it. */
	byte[] rewrite(VirtualCall call, String member, SseEvent event) {
		String eventId = event.id() == null ? null : MemberIds.eventId(Map.of(member, event.id()));
		return rewrite(call, member, event, eventId);
	}

	/**
	 * The event with a member request's id replaced and event id {@code eventId} (none when null); a member's
	 * {@code notifications/tools/list_changed} also drops the merged catalogue tool search keeps.
	 */
	byte[] rewrite(VirtualCall call, String member, SseEvent event, String eventId) {
		String sessionId = call.sessionId();
		if (!event.isMessage()) {
			return eventId == null ? event.raw() : SseEventWriter.withId(event, eventId, event.data() == null ? "" : event.data());
		}
		ObjectNode message = MemberMessages.parse(event.dataBytes());
		boolean memberRequest = message != null && message.hasNonNull("method") && message.hasNonNull("id");
		String method = message == null ? "" : message.path("method").asText();
		if (method.endsWith("/list_changed") && !message.has("id")) {
			listCache.changed(member, ListCache.listOf(method));
			if (method.equals("notifications/tools/list_changed")) {
				toolSearch.invalidate(call.server().id());
			}
		}
		if (!memberRequest) {
			return eventId == null && event.id() == null ? event.raw() : SseEventWriter.withId(event, eventId, event.data());
		}
		message.set("id", ids.wrap(sessionId, member, message.get("id")));
		return SseEventWriter.withId(event, eventId,
				new String(JsonRpcErrors.toBytes(message), StandardCharsets.UTF_8));
	}

	/** The headers of an event stream the virtual server writes itself. */
	static void eventStreamHeaders(HttpHeaders headers) {
		headers.set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream");
		headers.set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
	}

	/**
	 * Writes {@code events} as the body of an event stream, each flushed on its own, after an empty buffer that commits
	 * the headers and flushes them at once.
	 */
	static Mono<Void> writeEvents(RelayResponse response, Flux<byte[]> events) {
		return response.writeAndFlushEach(events.map(response.bufferFactory()::wrap)
			.startWith(response.bufferFactory().wrap(new byte[0])));
	}

}
