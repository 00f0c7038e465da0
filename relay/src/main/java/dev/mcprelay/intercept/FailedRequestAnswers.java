package dev.mcprelay.intercept;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.UpstreamError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.chain.Stage;
import reactor.core.publisher.Mono;

/**
 * The answers to the requests of a client request that the upstream did not answer itself, after the error stage:
 * those it never answered because the exchange failed in a way that is the relay's to report, and those it refused
 * with an HTTP 4xx or 5xx. (An upstream's own JSON-RPC error meets the stage in {@link ResponseInterception}.)
 */
@Component
public class FailedRequestAnswers {

	private final InterceptorChains chains;

	FailedRequestAnswers(InterceptorChains chains) {
		this.chains = chains;
	}

	/**
	 * Answers the requests the upstream never answered, after a failure that is the relay's to report: each gets the
	 * failure as a JSON-RPC error, unless the error stage replaces it.
	 *
	 * @param reason the failure's {@code error.data.reason}
	 * @return one answer per request, in order
	 */
	public Mono<List<ObjectNode>> answerFailure(List<McpRequest> unanswered, CallContext context, int code,
			String message, Map<String, String> data, String reason, Duration timeout) {
		return InOrder.map(unanswered, request -> {
			UpstreamError error = new UpstreamError(context, JsonRpcErrors.error(request.id(), code, message, data),
					request, reason);
			return chains.chain(Stage.ERROR, context).run(error, timeout).map(verdict -> ErrorStageAnswers.after(error, verdict));
		});
	}

	/** Whether any interceptor joined the error stage (so that refusals are worth reading for it). */
	public boolean hasErrorInterceptors() {
		return !chains.chain(Stage.ERROR).isEmpty();
	}

	/**
	 * Runs the error stage over the answers to requests the upstream refused with HTTP {@code httpStatus} (not 2xx):
	 * its JSON-RPC error for a request when it sent one, else the relay's {@code upstream_error_status}.
	 *
	 * @param requests the refused requests, in order
	 * @param answers one answer per request, in the same order
	 * @return the answers after the stage, and whether the stage changed any
	 */
	public Mono<RefusalAnswers> answerRefusal(List<McpRequest> requests, List<ObjectNode> answers, CallContext context,
			int httpStatus, Duration timeout) {
		List<Integer> indexes = IntStream.range(0, requests.size()).boxed().toList();
		return InOrder.map(indexes, i -> {
			ObjectNode answer = answers.get(i);
			String reason = "upstream_error_status".equals(answer.at("/error/data/reason").asText(null))
					? "upstream_error_status" : null;
			UpstreamError error = new UpstreamError(context, answer, requests.get(i), reason, httpStatus);
			return chains.chain(Stage.ERROR, context).run(error, timeout).map(verdict -> new RefusalAnswer(
					ErrorStageAnswers.after(error, verdict), !verdict.proceeds()));
		}).map(results -> new RefusalAnswers(results.stream().map(RefusalAnswer::answer).toList(),
				results.stream().anyMatch(RefusalAnswer::changed)));
	}

	private record RefusalAnswer(ObjectNode answer, boolean changed) {
	}

	/**
	 * The answers to refused requests after the error stage.
	 *
	 * @param answers one per request, in order
	 * @param changed whether an interceptor replaced any of them
	 */
	public record RefusalAnswers(List<ObjectNode> answers, boolean changed) {
	}

}
