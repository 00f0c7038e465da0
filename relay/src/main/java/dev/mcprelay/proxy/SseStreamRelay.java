package dev.mcprelay.proxy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.stereotype.Component;

import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.intercept.FailedRequestAnswers;
import dev.mcprelay.intercept.PendingRequests;
import dev.mcprelay.intercept.RemoteMessages;
import dev.mcprelay.intercept.ResponseInterception;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.jsonrpc.JsonRpcScanner;
import dev.mcprelay.sse.SseEvent;
import dev.mcprelay.sse.SseEventSplitter;
import dev.mcprelay.sse.SseEventTooLargeException;
import dev.mcprelay.sse.SseEventWriter;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransportException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Relays an upstream {@code text/event-stream} to the client event by event: the response headers are flushed at
 * once, then the relay's own answers to a batch (if any), then each event as soon as it is complete and the
 * server-to-client stages have passed it (flushed whenever no further event is ready): its raw bytes unchanged, or, when an interceptor changed or rejected its
 * message, a substitute keeping its {@code id:}, {@code event:} and {@code retry:} fields. A server-to-client request
 * an interceptor rejected is answered upstream ({@link ServerRequestAnswers}) and never reaches the client: only its
 * {@code id:} does, or a warning notification when the server is configured to notify. Events keep their order.
 * Demand comes from the client, so a slow client (or a slow interceptor) slows the upstream read instead of filling
 * memory: what a stream holds for a client that stops reading is bounded by {@code sessions.max-held-bytes} twice,
 * what it read ahead of the client ({@link EventReadAhead}) and what it handed to the client's connection that is not
 * written yet ({@link ClientWriteWindow}), besides the event being completed. A client that goes away cancels the
 * upstream exchange.
 *
 * <p>How a stream ends:
 * <ul>
 * <li>the upstream ends it: the client's stream ends too (a bytes of an unterminated last event are dropped, as an
 * SSE client would drop them); requests of a POST still unanswered are kept for their answers on a resumed stream
 * ({@link PendingRequests#leftUnanswered}), as they are when the client goes away;</li>
 * <li>no byte for {@code timeouts.streaming-idle} while the relay was ready to read: on a POST stream, each request
 * still unanswered gets a JSON-RPC error event (or the result the error stage gives it); on a GET stream, or the
 * stream of a 2026-07-28 {@code subscriptions/listen} (quiet by design), this is its normal end;</li>
 * <li>shutdown: GET and listen streams end at once (a listen stream with its result, {@code resultType: complete},
 * as a server ends a subscription); other POST streams after the grace period, with an error event for each request
 * still unanswered;</li>
 * <li>the client took nothing for {@code timeouts.client-write} while the relay held all it may read ahead (a client
 * that takes its stream slowly but steadily is never cut: what it takes restarts its clock): the client's connection
 * is closed (reason {@code client_write_timeout}, outcome {@code client_error}) and the upstream
 * exchange cancelled ({@link StreamWatch});</li>
 * <li>an event larger than {@code max-buffered-body}, a message event that is not JSON-RPC, a broken connection, or a
 * transport's own failure (a bridged session ended, or a bridged answer overflowed what the relay holds for the
 * client): the upstream exchange is closed and, on a POST stream, each request still unanswered gets a JSON-RPC
 * error event.</li>
 * </ul>
 */
@Component
class SseStreamRelay {

	private static final Logger log = LoggerFactory.getLogger(SseStreamRelay.class);

	private final ResponseInterception responseInterception;

	private final FailedRequestAnswers failedRequestAnswers;

	private final OpenStreams openStreams;

	private final ServerRequestAnswers serverRequestAnswers;

	private final SessionStreams sessionStreams;

	private final ResponseHead responseHead;

	private final ListChangedWatch listChanges;

	/**
	 * What a stream may hold for its client, read ahead of it and handed to its connection but not yet written, each:
	 * {@code sessions.max-held-bytes}.
	 */
	private final long maxHeldBytes;

	SseStreamRelay(ResponseInterception responseInterception, FailedRequestAnswers failedRequestAnswers,
			OpenStreams openStreams, ServerRequestAnswers serverRequestAnswers, SessionStreams sessionStreams,
			ResponseHead responseHead, ListChangedWatch listChanges, RelayProperties properties) {
		this.listChanges = listChanges;
		this.maxHeldBytes = properties.sessions().maxHeldBytes().toBytes();
		this.responseHead = responseHead;
		this.responseInterception = responseInterception;
		this.failedRequestAnswers = failedRequestAnswers;
		this.openStreams = openStreams;
		this.serverRequestAnswers = serverRequestAnswers;
		this.sessionStreams = sessionStreams;
	}

	Mono<Void> relay(RelayCall call, UpstreamResponse upstreamResponse) {
		RelayResponse response = call.exchange().response();
		responseHead.write(call, upstreamResponse, false);
		DataBufferFactory buffers = response.bufferFactory();
		Upstream upstream = call.upstream();
		SseEventSplitter splitter = new SseEventSplitter(upstream.maxBufferedBody().toBytes());

		// The events each upstream chunk completes, as the client gets them, in order, as soon as they passed.
		StreamWatch watch = StreamWatch.of(upstream.streamingIdleTimeout(), upstream.clientWriteTimeout(), response);
		Flux<byte[]> events = EventReadAhead
			.relay(watch.watch(openStreams.untilShutdown(upstreamResponse.body(), call)), splitter, maxHeldBytes,
					completed -> relayEvents(completed, call))
			.concatWith(Mono.fromCallable(() -> endOfStream(splitter, upstream)))
			// a POST stream ended, or left, before its answers may be resumed (a failure's are the relay's answers)
			.doOnComplete(call.pending()::leftUnanswered)
			.doOnCancel(call.pending()::leftUnanswered)
			// an upstream chunk discarded here is released by the one discard hook of ClientWriteWindow, downstream: a
			// second hook of the same type is chained to it (Reactor composes them) and released the chunk twice
			.onErrorResume(error -> endAfterFailure(error, call));
		events = openStreams.count(upstream.id(), events);
		if (!call.isPost()) {
			events = sessionStreams.carry(upstream.id(),
					call.exchange().requestHeaders().get(HeaderRules.MCP_SESSION_ID), events);
		}

		Flux<byte[]> localAnswers = Flux.fromIterable(call.plan() == null ? List.of() : call.plan().localAnswers())
			.map(answer -> SseEventWriter.message(new String(JsonRpcErrors.toBytes(answer), StandardCharsets.UTF_8)));
		// One write: an empty buffer first, which commits the headers and, nothing else being ready, flushes them at
		// once; then every event, written as it comes and flushed whenever no further event is ready, so an event never
		// waits for a later one and a burst costs one flush. (A group per event flushed each on its own, and waited for
		// each write: 2x slower, bench/results; write groups cost a queue per stream for the first flush alone.)
		return response.write(ClientWriteWindow
			.buffers(localAnswers.concatWith(events).filter(bytes -> bytes.length > 0), response, maxHeldBytes,
					watch::clientTook)
			.startWith(buffers.wrap(new byte[0])));
	}

	/**
	 * The events of one upstream chunk as the client gets them, in order. When no interceptor of the server looks at
	 * server messages in the configuration current now (what the server sends is decided when it is sent, whatever
	 * configuration the stream began on) and every event of the chunk is a plain notification (or no message at all),
	 * the chunk's events
	 * are relayed as they came, without a tree or a stage, as one write: the common case of a long stream of progress.
	 * Otherwise each event goes through the stages in turn and is passed on as soon as it has: an event that ends the
	 * stream (a malformed message) does so after the events before it went out. Either way a server's
	 * {@code list_changed} is heard first ({@link ListChangedWatch}), whatever chain the stream began on.
	 */
	private Publisher<byte[]> relayEvents(List<SseEvent> completed, RelayCall call) {
		listChanges.heard(call.upstream().id(), completed);
		if (responseInterception.relaysNotificationsUntouched(call.context()) && allPlain(completed)) {
			if (call.trace().recordsEvents()) {
				completed.stream().filter(SseEvent::isMessage).forEach(event -> call.trace().streamed(event.dataBytes()));
			}
			return Mono.just(SseEvent.rawOf(completed));
		}
		if (completed.size() == 1) {
			return relayEvent(completed.get(0), call);
		}
		return Flux.fromIterable(completed).concatMap(event -> relayEvent(event, call));
	}

	private static boolean allPlain(List<SseEvent> events) {
		for (SseEvent event : events) {
			if (event.isMessage() && !event.holdsPlainNotification()) {
				return false;
			}
		}
		return true;
	}

	/** The event as the client gets it: raw, or a substitute around its message as the interceptors left it. */
	private Mono<byte[]> relayEvent(SseEvent event, RelayCall call) {
		if (!event.isMessage()) {
			return Mono.just(event.raw());
		}
		JsonRpcPayload received;
		try {
			received = JsonRpcScanner.scan(event.dataBytes());
		}
		catch (JsonRpcParseException ex) {
			return Mono.error(new MalformedEventException(ex.getMessage()));
		}
		return responseInterception
			.apply(received, call.context(), call.pending(), true, call.upstream().nonStreamingTimeout())
			.flatMap(messages -> serverRequestAnswers.send(call, messages.upstreamAnswers()).thenReturn(messages))
			.map(messages -> {
				RemoteMessages shown = call.upstream().notifiesRejectedServerRequests() ? messages.withNotices()
						: messages;
				if (shown.isEmpty()) {
					return SseEventWriter.idOnly(event);
				}
				return shown.changed()
						? SseEventWriter.substitute(event, new String(shown.bytes(), StandardCharsets.UTF_8))
						: event.raw();
			});
	}

	private Flux<byte[]> endAfterFailure(Throwable error, RelayCall call) {
		Upstream upstream = call.upstream();
		if (error instanceof StreamWatch.ClientStalledException) {
			return openStreams.endForStalledClient(call);
		}
		boolean idle = error instanceof TimeoutException;
		boolean shuttingDown = error instanceof RelayShuttingDownException;
		if (shuttingDown && ((RelayShuttingDownException) error).reloadReason() != null
				&& (!call.isPost() || ListenStreams.isListen(call))) {
			// a stream of the server's a reload ended (its answer long begun): recorded as the reload's doing
			call.exchange().record().cutByRelay(((RelayShuttingDownException) error).reloadReason());
		}
		if ((idle || shuttingDown) && !call.isPost()) {
			log.debug("GET stream from '{}' {}: ending it", upstream.id(),
					idle ? "idle for " + upstream.streamingIdleTimeout() : "closed for shutdown");
			return Flux.empty();
		}
		if ((idle || shuttingDown) && ListenStreams.isListen(call)) {
			log.debug("subscriptions/listen stream from '{}' {}: ending it", upstream.id(),
					idle ? "idle for " + upstream.streamingIdleTimeout() : "closed for shutdown");
			return shuttingDown ? Flux.fromIterable(call.pending().remaining()).map(ListenStreams::complete)
					: Flux.empty();
		}
		RelayFailure failure;
		if (shuttingDown) {
			failure = ((RelayShuttingDownException) error).failure(upstream.id());
		}
		else if (idle) {
			failure = RelayFailures.upstreamStreamIdle(upstream.id(), upstream.streamingIdleTimeout());
		}
		else if (error instanceof SseEventTooLargeException) {
			failure = RelayFailures.upstreamResponseTooLarge(upstream.id(), upstream.maxBufferedBody());
		}
		else if (error instanceof UpstreamTransportException transportFailure) {
			// a transport's own failure of a stream it composed (the legacy bridge: its session ended, or the answer
			// overflowed what it may hold for the client)
			failure = RelayFailures.transportFailure(upstream.id(), transportFailure);
		}
		else if (error instanceof MalformedEventException) {
			failure = RelayFailures.upstreamInvalidResponse(upstream.id(), "an SSE event held no JSON-RPC message ("
					+ error.getMessage() + ")");
		}
		else {
			failure = RelayFailures.upstreamStreamBroken(upstream.id());
		}
		if (shuttingDown) {
			// the relay's doing (shutdown, or a reload that removed the server), never the upstream's failure
			call.exchange().record().cutByRelay(failure.reason());
		}
		else {
			call.exchange().record().failed(true, failure.reason());
		}
		List<McpRequest> unanswered = call.pending().remaining();
		if (shuttingDown) {
			log.info("{} stream from '{}' closed for shutdown; {} request(s) answered with an error", call.method(),
					upstream.id(), unanswered.size());
		}
		else {
			log.warn("{} stream from '{}' ended early ({}; {}); {} request(s) answered with an error", call.method(),
					upstream.id(), failure.reason(), UpstreamFailures.describe(error), unanswered.size());
		}
		return failedRequestAnswers
			.answerFailure(unanswered, call.context(), failure.code(), failure.getMessage(), failure.data(),
					failure.reason(), upstream.nonStreamingTimeout())
			.flatMapIterable(answers -> answers)
			.map(answer -> SseEventWriter.message(new String(JsonRpcErrors.toBytes(answer), StandardCharsets.UTF_8)));
	}

	/** What to write after the upstream's last event: the rest of a line end split off it, or nothing. */
	private static byte[] endOfStream(SseEventSplitter splitter, Upstream upstream) {
		if (splitter.pendingBytes() > 0) {
			log.warn("The stream from '{}' ended inside an event; its {} bytes were dropped, as an SSE client would",
					upstream.id(), splitter.pendingBytes());
		}
		return splitter.trailingLineEnds();
	}

	/** A message event whose data is not a JSON-RPC message. */
	private static final class MalformedEventException extends RuntimeException {

		MalformedEventException(String message) {
			super(message, null, false, false);
		}

	}

}
