package dev.mcprelay.proxy;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.McpRequest;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.intercept.FailedRequestAnswers;
import dev.mcprelay.intercept.RemoteMessages;
import dev.mcprelay.intercept.ResponseInterception;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.jsonrpc.JsonRpcScanner;
import dev.mcprelay.transport.UpstreamResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Relays an upstream response to the client, by kind:
 * <ul>
 * <li>2xx {@code application/json} (not for DELETE): read whole within the non-streaming deadline and
 * {@code max-buffered-body} (counted in the memory budget for bodies, never refused by it: the call ran upstream, and
 * its answer is not to be replaced by "try again", {@link BoundedBody#readAnswer}), checked to be JSON-RPC, run
 * through the server-to-client stages, relayed byte for byte
 * unless an interceptor changed it; the relay's own answers to a batch join the upstream's. Written no faster than the
 * client takes it ({@link ClientWriteWindow#whole}: at most {@code sessions.max-held-bytes} of it off the heap) and cut,
 * as a stalled stream is, when the client takes nothing of it for {@code client-write}; an empty body when no
 * request waits for an answer (the client sent notifications or responses) is taken as accepted: 202;</li>
 * <li>2xx {@code text/event-stream}: handed to {@link SseStreamRelay}, event by event;</li>
 * <li>any other 2xx to a POST that held requests (another type such as {@code application/json-rpc}, no type, a 202,
 * an encoded body, {@link UpstreamBodyType#readable}): not relayed, each request answered with
 * {@code upstream_invalid_response} naming the head ({@link #refuseUnreadable});</li>
 * <li>202 to a POST the relay partly answered itself (a batch): the relay's answers, as JSON;</li>
 * <li>not 2xx to a POST that the relay partly answered itself, or that held requests and was answered with a body that
 * may hold JSON-RPC answers (anything but an HTML or text page, {@link UpstreamBodyType#page}) or error interceptors
 * are configured: each request answered through the error stage ({@link RefusalRelay}), the upstream's body relayed
 * as it came only when it is a page or exactly one JSON-RPC error per request under its id;</li>
 * <li>anything else (a 2xx of another type to a POST of notifications or responses, a non-2xx HTML or text page, a
 * non-2xx to a POST of notifications or responses, a DELETE's answer): status, safe headers and body relayed
 * untouched as the bytes arrive, bounded by the upstream's silence ({@code streaming-idle}) and the client's
 * ({@code client-write}), told apart by {@link StreamWatch}, and by shutdown's grace period
 * ({@link OpenStreams#untilShutdown}).</li>
 * </ul>
 * A failure before the client's response is committed propagates, to be answered as a JSON-RPC error.
 */
@Component
class ResponseRelay {

	private static final Logger log = LoggerFactory.getLogger(ResponseRelay.class);

	private final SseStreamRelay sseStreamRelay;

	private final ResponseInterception responseInterception;

	private final FailedRequestAnswers failedRequestAnswers;

	private final ServerRequestAnswers serverRequestAnswers;

	private final OpenStreams openStreams;

	private final ResponseHead responseHead;

	private final RefusalRelay refusalRelay;

	private final ListChangedWatch listChanges;

	ResponseRelay(SseStreamRelay sseStreamRelay, ResponseInterception responseInterception,
			FailedRequestAnswers failedRequestAnswers, ServerRequestAnswers serverRequestAnswers,
			OpenStreams openStreams, ResponseHead responseHead, RefusalRelay refusalRelay,
			ListChangedWatch listChanges) {
		this.listChanges = listChanges;
		this.responseHead = responseHead;
		this.refusalRelay = refusalRelay;
		this.sseStreamRelay = sseStreamRelay;
		this.responseInterception = responseInterception;
		this.failedRequestAnswers = failedRequestAnswers;
		this.serverRequestAnswers = serverRequestAnswers;
		this.openStreams = openStreams;
	}

	Mono<Void> relay(RelayCall call, UpstreamResponse upstreamResponse, NonStreamingDeadline deadline) {
		HttpStatusCode status = upstreamResponse.statusCode();
		call.exchange().record().forwarded(status.value());
		UpstreamBodyType bodyType = UpstreamBodyType.of(upstreamResponse);
		boolean heldRequests = !call.pending().isEmpty();
		if (status.is2xxSuccessful() && (!heldRequests || (bodyType.readable() && status.value() != HttpStatus.ACCEPTED.value()))) {
			if (bodyType.isEventStream()) {
				deadline.release();
				return sseStreamRelay.relay(call, upstreamResponse);
			}
			if (bodyType.isJson() && !HttpMethod.DELETE.equals(call.method())) {
				return relayJson(call, upstreamResponse, deadline);
			}
		}
		else if (status.is2xxSuccessful()) {
			return refuseUnreadable(call, upstreamResponse, bodyType);
		}
		boolean answeredLocally = call.plan() != null && !call.plan().localAnswers().isEmpty();
		if (!status.is2xxSuccessful() && (answeredLocally || heldRequests
				&& (!bodyType.page() || failedRequestAnswers.hasErrorInterceptors()))) {
			return refusalRelay.relay(call, upstreamResponse, bodyType, deadline);
		}
		deadline.release();
		if (status.value() == 202 && answeredLocally) {
			return upstreamResponse.releaseBody()
				.then(RelayAnswers.answer(call.exchange().response(), call.plan().localAnswerStatus(),
						call.plan().localAnswers(), true));
		}
		return relayUntouched(call, upstreamResponse);
	}

	/**
	 * The upstream said 2xx to a POST that held requests with a body MCP does not answer requests with (neither
	 * {@code application/json} nor {@code text/event-stream}, no type, a 202 without a body, an encoding the relay does
	 * not decode): nothing of it is relayed, since nothing of it could meet its stages, and it is not read. The failure
	 * ({@code upstream_invalid_response}, naming the head, never the body) answers each request through the error
	 * stage, as any failure of the exchange does ({@link UpstreamForwarding}, which records it); logged at WARN.
	 */
	private Mono<Void> refuseUnreadable(RelayCall call, UpstreamResponse upstreamResponse, UpstreamBodyType bodyType) {
		Upstream upstream = call.upstream();
		int status = upstreamResponse.statusCode().value();
		log.warn("{} to '{}': the upstream's HTTP {} answer to {} request(s) came with {}; each is answered with an "
				+ "error", call.method(), upstream.id(), status, call.pending().remaining().size(), bodyType.describe());
		RelayFailure failure = RelayFailures.upstreamInvalidResponse(upstream.id(), "its HTTP " + status
				+ " answer to a request came with " + bodyType.describe()
				+ " (requests are answered with application/json or text/event-stream)");
		return upstreamResponse.releaseBody().then(Mono.error(failure));
	}

	private Mono<Void> relayJson(RelayCall call, UpstreamResponse upstreamResponse, NonStreamingDeadline deadline) {
		Upstream upstream = call.upstream();
		return BoundedBody
			.readAnswer(upstreamResponse.body(), upstream.maxBufferedBody(),
					() -> RelayFailures.upstreamResponseTooLarge(upstream.id(), upstream.maxBufferedBody()))
			.flatMap(body -> {
				if (call.pending().isEmpty() && isBlank(body)) {
					deadline.release();
					return accepted(call, upstreamResponse).then(Mono.<RemoteMessages>empty());
				}
				JsonRpcPayload received;
				try {
					received = JsonRpcScanner.scan(body);
				}
				catch (JsonRpcParseException ex) {
					return Mono.error(RelayFailures.upstreamInvalidResponse(upstream.id(), ex.getMessage()));
				}
				deadline.release();
				// a list_changed in a JSON answer is heard as on a stream, whatever chain the answer meets
				listChanges.heardIn(upstream.id(), received.messages());
				return responseInterception
					.apply(received, call.context(), call.pending(), false, upstream.nonStreamingTimeout())
					.flatMap(messages -> serverRequestAnswers.send(call, messages.upstreamAnswers())
						.thenReturn(upstream.notifiesRejectedServerRequests() ? messages.withNotices() : messages));
			})
			.flatMap(messages -> {
				List<ObjectNode> localAnswers = call.plan() == null ? List.of() : call.plan().localAnswers();
				if (!call.pending().isEmpty()) {
					return answerUnanswered(call, upstreamResponse, messages, localAnswers);
				}
				if (messages.isEmpty() && localAnswers.isEmpty()) {
					return accepted(call, upstreamResponse);
				}
				byte[] body = messages.bytesWith(localAnswers);
				RelayResponse response = call.exchange().response();
				responseHead.write(call, upstreamResponse, false);
				response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
				return writeWhole(call, body);
			});
	}

	/**
	 * A JSON answer is the whole answer of a POST: a request it left unanswered (the upstream answered under an id the
	 * POST never sent, or not at all) gets an error ({@code upstream_invalid_response}, through the error stage), never
	 * silence, logged at WARN. The upstream's own answers and the relay's go with it.
	 */
	private Mono<Void> answerUnanswered(RelayCall call, UpstreamResponse upstreamResponse, RemoteMessages messages,
			List<ObjectNode> localAnswers) {
		Upstream upstream = call.upstream();
		List<McpRequest> unanswered = call.pending().remaining();
		RelayFailure failure = RelayFailures.upstreamInvalidResponse(upstream.id(),
				"its JSON answer held no answer to " + unanswered.size() + " of the request(s) it was sent");
		log.warn("{} to '{}': the upstream's JSON answer left {} request(s) unanswered; each is answered with an error",
				call.method(), upstream.id(), unanswered.size());
		return failedRequestAnswers
			.answerFailure(unanswered, call.context(), failure.code(), failure.getMessage(), failure.data(),
					failure.reason(), upstream.nonStreamingTimeout())
			.flatMap(failed -> {
				List<ObjectNode> extra = new ArrayList<>(failed);
				extra.addAll(localAnswers);
				RelayResponse response = call.exchange().response();
				if (!messages.isEmpty()) {
					byte[] body = messages.bytesWith(extra);
					responseHead.write(call, upstreamResponse, false);
					response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
					return writeWhole(call, body);
				}
				boolean allResults = extra.stream().noneMatch(answer -> answer.has("error"));
				if (!allResults) {
					call.exchange().record().failed(true, failure.reason());
				}
				return RelayAnswers.answer(response, allResults ? HttpStatus.OK : failure.status(), extra,
						call.plan() != null && call.plan().payload().batch(), HttpHeaders.EMPTY, openStreams.clientTimed(call));
			});
	}

	/**
	 * Writes {@code body}, the whole answer, through a {@link ClientWriteWindow}, timed by the client's clock of a
	 * {@link StreamWatch} ({@code timeouts.client-write}): a client that takes nothing of it for that long is closed as a
	 * stalled stream's is ({@link OpenStreams#endForStalledClient}: reason {@code client_write_timeout}, outcome
	 * {@code client_error}, counted), on a member's exchange too, whose "client" is the virtual server's reader.
	 */
	private Mono<Void> writeWhole(RelayCall call, byte[] body) {
		return openStreams.clientTimed(call).write(call.exchange().response(), body);
	}

	/**
	 * Answers a POST of notifications or responses whose upstream said 2xx with nothing in the body: accepted, as the
	 * transport prescribes (202, no body), with the relay's own answers if a batch had any.
	 */
	private Mono<Void> accepted(RelayCall call, UpstreamResponse upstreamResponse) {
		if (call.plan() != null && !call.plan().localAnswers().isEmpty()) {
			return RelayAnswers.answer(call.exchange().response(), call.plan().localAnswerStatus(),
					call.plan().localAnswers(), call.plan().payload().batch());
		}
		RelayResponse response = call.exchange().response();
		responseHead.write(call, upstreamResponse, false);
		response.status(HttpStatus.ACCEPTED);
		response.headers().remove(HttpHeaderNames.CONTENT_TYPE);
		response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
		return response.complete();
	}

	private static boolean isBlank(byte[] body) {
		for (byte b : body) {
			if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
				return false;
			}
		}
		return true;
	}

	private Mono<Void> relayUntouched(RelayCall call, UpstreamResponse upstreamResponse) {
		RelayResponse response = call.exchange().response();
		responseHead.write(call, upstreamResponse, true);
		Upstream upstream = call.upstream();
		return response.write(StreamWatch.of(upstream.streamingIdleTimeout(), upstream.clientWriteTimeout(), response)
			.watch(openStreams.untilShutdown(upstreamResponse.body(), call))
			.onErrorResume(StreamWatch.ClientStalledException.class,
					stalled -> openStreams.<DataBuffer>endForStalledClient(call))
			.onErrorResume(RelayShuttingDownException.class, cut -> cutForShutdown(call))
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release));
	}

	/**
	 * Ends a body relayed untouched that shutdown cut: its head went out, so no error can be said any more; the
	 * client's connection is closed, which tells it the body is incomplete (a chunked body without its last chunk, or
	 * fewer bytes than its length). Logged at INFO and recorded as the relay's doing.
	 */
	private <T> Flux<T> cutForShutdown(RelayCall call) {
		log.info("{} response from '{}' cut for shutdown: its body had not ended when the grace period did; the client's "
				+ "connection is closed", call.method(), call.upstream().id());
		call.exchange().record().cutByShutdown();
		call.exchange().response().closeConnection();
		return Flux.empty();
	}

}
