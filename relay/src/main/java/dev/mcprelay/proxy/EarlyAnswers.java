package dev.mcprelay.proxy;

import java.util.ArrayList;
import java.util.List;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.chain.Verdict;
import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.intercept.InboundPlan;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.metrics.RelayOutcome;
import reactor.core.publisher.Mono;

/**
 * The answers {@link McpRelay} gives before anything goes upstream: a failure of the request itself, a batch with no
 * valid element, a GET or DELETE an interceptor refused, a POST the interceptors answered in full. Each is recorded
 * for the meters and the access log, then written as the whole response.
 */
final class EarlyAnswers {

	private EarlyAnswers() {
	}

	/**
	 * Answers a request refused before anything was sent upstream, by the ids of {@code payload}'s requests when it
	 * was read.
	 */
	static Mono<Void> answerEarly(RelayExchange exchange, RelayFailure failure, JsonRpcPayload payload) {
		exchange.record().failed(failure.outcome(), failure.reason());
		return RelayAnswers.respond(exchange.response(), failure, payload);
	}

	/** Answers a batch none of whose elements is a valid message: an error for each, nothing forwarded. */
	static Mono<Void> answerInvalidBatch(RelayExchange exchange, JsonRpcPayload payload) {
		exchange.record().failed(false, "invalid_request");
		return RelayAnswers.answer(exchange.response(), HttpStatus.BAD_REQUEST, payload.invalidAnswers(), true);
	}

	/**
	 * Answers a GET or DELETE an interceptor refused: 403 (or the status the rejection asked for) with an id-less
	 * error; nothing goes upstream.
	 */
	static Mono<Void> refuseWithoutBody(RelayExchange exchange, Verdict verdict) {
		exchange.record().stoppedBy(RelayOutcome.REJECTED, verdict.interceptor());
		exchange.record().refusals(List.of(verdict));
		RejectError error = verdict.error();
		HttpHeaders headers = new HttpHeaders();
		if (error.retryAfter() != null) {
			headers.set(HttpHeaders.RETRY_AFTER, String.valueOf(RejectError.retryAfterSeconds(error.retryAfter())));
		}
		HttpStatus status = error.httpStatus() > 0 ? HttpStatus.valueOf(error.httpStatus()) : HttpStatus.FORBIDDEN;
		return RelayAnswers.answer(exchange.response(), status,
				List.of(JsonRpcErrors.error(null, error.code(), error.getMessage(), error.data())), false, headers);
	}

	/**
	 * Answers a POST the interceptors answered in full, or refused whole ({@link InboundPlan}): nothing goes upstream.
	 * Notifications an interceptor answered with go first, as an SSE stream, when the client accepts one; otherwise on
	 * the session's GET stream, when one is open on this replica ({@link SessionStreams}), and the answer is JSON. A
	 * batch refused for its invalid elements alone is answered as {@link #answerInvalidBatch}.
	 */
	static Mono<Void> answerLocally(RelayExchange exchange, InboundPlan plan, SessionStreams sessionStreams,
			String serverId) {
		if (plan.stops().isEmpty()) {
			// nothing an interceptor stopped: the body's invalid elements refused it whole
			return answerInvalidBatch(exchange, plan.payload());
		}
		Verdict first = plan.stops().get(0);
		boolean responded = plan.stops().stream().allMatch(stop -> stop.kind() == Verdict.Kind.RESPOND);
		exchange.record()
			.stoppedBy(responded ? RelayOutcome.RESPONDED : RelayOutcome.REJECTED, first.interceptor());
		if (!plan.localNotifications().isEmpty() && acceptsEventStream(exchange)) {
			List<ObjectNode> events = new ArrayList<>(plan.localNotifications());
			events.addAll(plan.localAnswers());
			return RelayAnswers.stream(exchange.response(), events);
		}
		sessionStreams.send(serverId, exchange.requestHeaders().get(HeaderRules.MCP_SESSION_ID),
				plan.localNotifications());
		return RelayAnswers.answer(exchange.response(), plan.localAnswerStatus(), plan.localAnswers(),
				plan.payload().batch(), plan.localAnswerHeaders());
	}

	private static boolean acceptsEventStream(RelayExchange exchange) {
		try {
			return exchange.requestHeaderView().getAccept().stream()
				.anyMatch(type -> type.getType().equals("text") && type.getSubtype().equals("event-stream"));
		}
		catch (InvalidMediaTypeException ex) {
			return false;
		}
	}

}
