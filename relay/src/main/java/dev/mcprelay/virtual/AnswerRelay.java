package dev.mcprelay.virtual;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.http.ReloadEnding;
import dev.mcprelay.proxy.ClientWriteWindow;
import dev.mcprelay.proxy.HeaderNameSet;
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
 *
 * <p>Every event stream the virtual server writes to its client (a member's answer, the merged GET, a merged
 * {@code subscriptions/listen}) goes through a {@link ClientWriteWindow}, as a pass-through stream does: what is handed
 * to the client's connection and not yet written is bounded by {@code sessions.max-held-bytes}, so a client that reads
 * nothing stops the member's stream at the relay (whose member relay then finds its reader stalled for the member's
 * {@code timeouts.client-write} and the client's connection is closed, {@link MemberCalls}), instead of letting
 * Reactor Netty's write take 128 whole events ahead of the socket. A member's JSON answer goes through one too
 * ({@link #writeWhole}), so that a client that reads nothing of it is found stalled likewise.
 */
@Component
class AnswerRelay {

	/** Member answer headers the client does not get as they are. */
	private static final HeaderNameSet NOT_RELAYED = HeaderNameSet.of(List.of("Mcp-Session-Id", "Content-Length",
			"Transfer-Encoding", "Connection"));

	private final MemberIds ids;

	private final ListCache listCache;

	/** What an event stream may have handed to the client's connection and not yet written. */
	private final long maxHeldBytes;

	AnswerRelay(MemberIds ids, ListCache listCache, RelayProperties properties) {
		this.ids = ids;
		this.listCache = listCache;
		this.maxHeldBytes = properties.sessions().maxHeldBytes().toBytes();
	}

	/**
	 * Relays {@code answer}, after {@code notices} of the relay's own when there are any and the client takes an event
	 * stream (a JSON answer then goes as the stream's last event); otherwise the notices are left out.
	 */
	Mono<Void> relay(VirtualCall call, MemberAnswer answer, List<ObjectNode> notices) {
		return relay(call, answer, notices, Mono.never(), null);
	}

	/**
	 * {@link #relay(VirtualCall, MemberAnswer, List)}, an event stream ending as {@code cut} completes: the member's
	 * exchange is cancelled, and the client gets {@code instead} as the stream's last event (the error for its request,
	 * whose answer will not come).
	 */
	Mono<Void> relay(VirtualCall call, MemberAnswer answer, List<ObjectNode> notices, Mono<Void> cut,
			Supplier<ObjectNode> instead) {
		if (notices.isEmpty() || !VirtualAnswers.acceptsEventStream(call) || !answer.status().is2xxSuccessful()
				|| !(answer.isEventStream() || answer.isJson())) {
			return relay(call, answer, cut, instead);
		}
		Flux<byte[]> told = Flux.fromIterable(notices).map(AnswerRelay::event);
		Flux<byte[]> rest = answer.isEventStream() ? events(call, answer, cut, instead)
				: answer.bytes(MemberMessages.MAX_BYTES)
					.map(body -> SseEventWriter.message(new String(body, StandardCharsets.UTF_8)))
					.flux();
		RelayResponse response = call.exchange().response();
		recordAnswer(call, answer);
		response.status(answer.status());
		eventStreamHeaders(response.headers());
		if (call.session() != null) {
			response.headers().set("Mcp-Session-Id", call.session().id());
		}
		return recordingCut(call, answer, writeEvents(response, told.concatWith(rest)));
	}

	Mono<Void> relay(VirtualCall call, MemberAnswer answer) {
		return relay(call, answer, Mono.never(), null);
	}

	private Mono<Void> relay(VirtualCall call, MemberAnswer answer, Mono<Void> cut, Supplier<ObjectNode> instead) {
		RelayResponse response = call.exchange().response();
		recordAnswer(call, answer);
		response.status(answer.status());
		relayHeaders(answer, response.headers());
		if (call.session() != null) {
			response.headers().set("Mcp-Session-Id", call.session().id());
		}
		if (!answer.isEventStream()) {
			return recordingCut(call, answer, writeWhole(response, answer.body()));
		}
		return recordingCut(call, answer, writeEvents(response, events(call, answer, cut, instead)));
	}

	/**
	 * Sets on {@code to} each header of {@code answer} the client gets as it is (all but {@link #NOT_RELAYED}), under
	 * its name, with all its values, replacing what {@code to} held under it. Copied line by line from the headers
	 * as the member's relay wrote them, with no view, list or lower-cased name made, when no name comes twice (the
	 * rule); else name by name through the view, as Netty groups them.
	 */
	private static void relayHeaders(MemberAnswer answer, HttpHeaders to) {
		if (answer.written() != null && HeaderLines.copyEach(answer.written(), NOT_RELAYED, to, false)) {
			return;
		}
		answer.headers().forEach((name, values) -> {
			if (!NOT_RELAYED.contains(name)) {
				to.set(name, values);
			}
		});
	}

	/**
	 * Records the member's answer on the client's exchange: forwarded with its status, but for a refusal the member's
	 * relay made itself because a reload withdrew the caller's access to the member ({@link MemberAnswer#refusedAsWithdrawn}),
	 * which is the client's request refused ({@code outcome=client_error reason=access_withdrawn}, no upstream status),
	 * as a pass-through server's refusal is recorded.
	 */
	private static void recordAnswer(VirtualCall call, MemberAnswer answer) {
		if (answer.refusedAsWithdrawn().getAsBoolean()) {
			call.exchange().record().failed(false, ReloadEnding.ACCESS_WITHDRAWN);
		}
		else {
			call.exchange().record().forwarded(answer.status().value());
		}
	}

	/**
	 * {@code written}, the member's answer relayed, after which the virtual server's exchange says what the member's
	 * says when the relay itself cut the member's exchange ({@link MemberAnswer#cutByRelay}: {@code outcome=shutdown},
	 * {@code reason=relay_shutting_down}), as a direct server's call cut by shutdown is recorded, never as a forwarded
	 * 503 or 200: before the exchange's access-log line is written.
	 */
	private static Mono<Void> recordingCut(VirtualCall call, MemberAnswer answer, Mono<Void> written) {
		return written.doOnTerminate(() -> {
			String reason = answer.cutByRelay().get();
			if (reason != null) {
				call.exchange().record().cutByRelay(reason);
			}
		});
	}

	/** The events of {@code answer} as the client gets them, ended by {@code cut} with {@code instead} (if given). */
	private Flux<byte[]> events(VirtualCall call, MemberAnswer answer, Mono<Void> cut, Supplier<ObjectNode> instead) {
		Flux<byte[]> events = MemberMessages.events(answer).map(event -> rewrite(call, answer.member(), event));
		if (instead == null) {
			return events;
		}
		AtomicBoolean ended = new AtomicBoolean();
		return events.takeUntilOther(cut.then(Mono.fromCallable(() -> {
			ended.set(true);
			return true;
		}))).concatWith(Mono.fromCallable(() -> ended.get() ? event(instead.get()) : null));
	}

	private static byte[] event(ObjectNode message) {
		return SseEventWriter.message(new String(JsonRpcErrors.toBytes(message), StandardCharsets.UTF_8));
	}

	/** The event as the client gets it. */
	byte[] rewrite(VirtualCall call, String member, SseEvent event) {
		// a call's stream: its position is kept apart from the member's server stream's (a GET resumes both)
		String eventId = event.id() == null ? null : MemberIds.eventId(Map.of(MemberIds.callKey(member), event.id()));
		return rewrite(call, member, event, eventId);
	}

	/** The event as the client gets it, with event id {@code eventId} (none when null). */
	byte[] rewrite(VirtualCall call, String member, SseEvent event, String eventId) {
		return prepare(call.server(), call.sessionId(), member, event).bytes(eventId);
	}

	/**
	 * {@code member}'s event as the client of virtual session {@code sessionId} gets it, but for its event id: a member
	 * request's id replaced by one of the virtual server's ({@link MemberIds}); a member's
	 * {@code notifications/<list>/list_changed} also drops what the relay keeps of that list ({@link ListCache}).
	 */
	ClientEvent prepare(VirtualServer server, String sessionId, String member, SseEvent event) {
		if (!event.isMessage()) {
			return new ClientEvent(event, event.data() == null ? "" : event.data(), false, false);
		}
		ObjectNode message = MemberMessages.parse(event.dataBytes());
		boolean memberRequest = message != null && message.hasNonNull("method") && message.hasNonNull("id");
		String method = message == null ? "" : message.path("method").asText();
		if (method.endsWith("/list_changed") && !message.has("id")) {
			listCache.changed(member, ListCache.listOf(method));
		}
		if (!memberRequest) {
			return new ClientEvent(event, event.data(), true, false);
		}
		message.set("id", ids.wrap(sessionId, member, message.get("id")));
		return new ClientEvent(event, new String(JsonRpcErrors.toBytes(message), StandardCharsets.UTF_8), true, true);
	}

	/**
	 * A member's event ready for the client but for its event id, which the merged stream gives it in the order the
	 * client receives events.
	 *
	 * @param event the member's event
	 * @param data the event's data as the client gets it
	 * @param message whether it carries a message
	 * @param serverRequest whether that message is a request of the member's to the client
	 */
	record ClientEvent(SseEvent event, String data, boolean message, boolean serverRequest) {

		/** The event's bytes with event id {@code eventId}, or without one ({@code null}). */
		byte[] bytes(String eventId) {
			if (!serverRequest && eventId == null && event.id() == null) {
				return event.raw();
			}
			return SseEventWriter.withId(event, eventId, data);
		}

		/** How many bytes it holds, near enough. */
		int size() {
			return event.raw().length;
		}

	}

	/** The headers of an event stream the virtual server writes itself. */
	static void eventStreamHeaders(HttpHeaders headers) {
		headers.set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream");
		headers.set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
	}

	/**
	 * Writes {@code body}, a member's whole answer (JSON, or an error's body), through a {@link ClientWriteWindow} as
	 * events are: at most {@code sessions.max-held-bytes} handed to the client's connection and not yet written, each
	 * piece copied off the member's buffer as the window takes it. A client that reads nothing stops the member's write,
	 * whose relay finds its reader stalled for the member's {@code timeouts.client-write} and has the client's connection
	 * closed ({@link MemberCalls}), as for an event stream; without the window, Reactor Netty's write took the whole
	 * answer (128 slices of 64 KB) ahead of a client that read nothing, and nobody was left waiting to find it stalled.
	 */
	Mono<Void> writeWhole(RelayResponse response, Flux<DataBuffer> body) {
		return response.write(ClientWriteWindow.buffers(body.map(buffer -> {
			byte[] bytes = new byte[buffer.readableByteCount()];
			buffer.read(bytes);
			DataBufferUtils.release(buffer);
			return bytes;
		}), response, maxHeldBytes, () -> {
		}));
	}

	/**
	 * Writes {@code events} as the body of an event stream, after an empty buffer that commits the headers and flushes
	 * them at once; each event is written as it comes and flushed whenever no further one is ready, handed to the
	 * connection no faster than the client takes it ({@link ClientWriteWindow}, {@code sessions.max-held-bytes}). Who
	 * finds a client stalled is the member's relay, whose stream waits on this write: its reader is this window.
	 */
	Mono<Void> writeEvents(RelayResponse response, Flux<byte[]> events) {
		return response.write(ClientWriteWindow
			.buffers(events.filter(bytes -> bytes.length > 0), response, maxHeldBytes, () -> {
			})
			.startWith(response.bufferFactory().wrap(new byte[0])));
	}

}
