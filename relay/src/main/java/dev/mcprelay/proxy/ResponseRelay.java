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
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.McpRequest;
import dev.mcprelay.config.RelayProperties;
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
 * <li>202 to a POST the relay partly answered itself (a batch): the relay's answers, as JSON;</li>
 * <li>4xx or 5xx to a POST the relay partly answered itself, or when error interceptors are configured: for each
 * forwarded request the upstream's own error for it or, failing that, an error naming the upstream's status, through
 * the error stage (which may replace it with a result), and the relay's own answers; with the upstream's status
 * unless every answer is a result, so that no answer is lost. Unchanged and alone, the upstream's answer is relayed
 * as it came;</li>
 * <li>anything else (202, 4xx, 5xx, a DELETE's answer): status, safe headers and body relayed untouched as the
 * bytes arrive, bounded by the upstream's silence ({@code streaming-idle}) and the client's
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

	ResponseRelay(SseStreamRelay sseStreamRelay, ResponseInterception responseInterception,
			FailedRequestAnswers failedRequestAnswers, ServerRequestAnswers serverRequestAnswers,
			OpenStreams openStreams, ResponseHead responseHead, RelayProperties properties) {
		this.responseHead = responseHead;
		this.sseStreamRelay = sseStreamRelay;
		this.responseInterception = responseInterception;
		this.failedRequestAnswers = failedRequestAnswers;
		this.serverRequestAnswers = serverRequestAnswers;
		this.openStreams = openStreams;
	}

	Mono<Void> relay(RelayCall call, UpstreamResponse upstreamResponse, NonStreamingDeadline deadline) {
		HttpStatusCode status = upstreamResponse.statusCode();
		call.exchange().record().forwarded(status.value());
		MediaType contentType = upstreamResponse.contentType();
		if (status.is2xxSuccessful() && contentType != null) {
			if (contentType.isCompatibleWith(MediaType.TEXT_EVENT_STREAM)) {
				deadline.release();
				return sseStreamRelay.relay(call, upstreamResponse);
			}
			if (contentType.isCompatibleWith(MediaType.APPLICATION_JSON) && !HttpMethod.DELETE.equals(call.method())) {
				return relayJson(call, upstreamResponse, deadline);
			}
		}
		boolean answeredLocally = call.plan() != null && !call.plan().localAnswers().isEmpty();
		boolean refused = status.is4xxClientError() || status.is5xxServerError();
		if (refused && (answeredLocally
				|| (!call.pending().isEmpty() && failedRequestAnswers.hasErrorInterceptors()))) {
			return relayRefusal(call, upstreamResponse, deadline);
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
	 * The upstream refused the forwarded requests with a 4xx or 5xx, and either the relay answered part of the batch
	 * itself or error interceptors want to see refusals: every request gets its answer, through the error stage.
	 * The upstream's body is read within the usual bounds; a JSON-RPC error in it answers the request it names (or,
	 * id-less, every forwarded request); a request it does not answer gets an error naming the status. When no
	 * interceptor changed anything and the relay answered nothing itself, the upstream's answer is relayed as it came
	 * (status, headers, body); otherwise the answers are the body, with the upstream's status unless every answer is
	 * a result.
	 */
	private Mono<Void> relayRefusal(RelayCall call, UpstreamResponse upstreamResponse, NonStreamingDeadline deadline) {
		Upstream upstream = call.upstream();
		HttpStatusCode status = upstreamResponse.statusCode();
		List<McpRequest> refused = call.pending().remaining();
		return BoundedBody
			.readAnswer(upstreamResponse.body(), upstream.maxBufferedBody(),
					() -> RelayFailures.upstreamResponseTooLarge(upstream.id(), upstream.maxBufferedBody()))
			.flatMap(body -> {
				deadline.release();
				List<ObjectNode> answers = UpstreamErrorAnswers.of(body, call.pending(),
						RelayFailures.upstreamErrorStatus(upstream.id(), status.value()));
				return failedRequestAnswers
					.answerRefusal(refused, answers, call.context(), status.value(), upstream.nonStreamingTimeout())
					.flatMap(afterStage -> {
						RelayResponse response = call.exchange().response();
						List<ObjectNode> localAnswers = call.plan().localAnswers();
						if (!afterStage.changed() && localAnswers.isEmpty()) {
							responseHead.write(call, upstreamResponse, false);
							response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
							return writeWhole(call, body);
						}
						List<ObjectNode> all = new ArrayList<>(afterStage.answers());
						all.addAll(localAnswers);
						boolean allResults = all.stream().noneMatch(answer -> answer.has("error"));
						HttpStatus upstreamStatus = HttpStatus.resolve(status.value());
						return RelayAnswers.answer(response,
								allResults ? HttpStatus.OK : upstreamStatus != null ? upstreamStatus : HttpStatus.BAD_GATEWAY,
								all, call.plan().payload().batch() || !localAnswers.isEmpty(), HttpHeaders.EMPTY,
								clientTimed(call));
					});
			});
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
						call.plan() != null && call.plan().payload().batch(), HttpHeaders.EMPTY, clientTimed(call));
			});
	}

	/**
	 * Writes {@code body}, the whole answer, through a {@link ClientWriteWindow}, timed by the client's clock of a
	 * {@link StreamWatch} ({@code timeouts.client-write}): a client that takes nothing of it for that long is closed as a
	 * stalled stream's is ({@link OpenStreams#endForStalledClient}: reason {@code client_write_timeout}, outcome
	 * {@code client_error}, counted), on a member's exchange too, whose "client" is the virtual server's reader.
	 */
	private Mono<Void> writeWhole(RelayCall call, byte[] body) {
		return clientTimed(call).write(call.exchange().response(), body);
	}

	/** The one writer of {@code call}'s whole answers: {@link OpenStreams#clientTimed}, on the server's clock. */
	private WholeAnswerWriter clientTimed(RelayCall call) {
		Upstream upstream = call.upstream();
		return openStreams.clientTimed(call.exchange(), upstream.id(), call.method().name(),
				upstream.clientWriteTimeout());
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
