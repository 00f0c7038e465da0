package dev.mcprelay.proxy;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.McpRequest;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.intercept.FailedRequestAnswers;
import dev.mcprelay.transport.UpstreamResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import reactor.core.publisher.Mono;

/**
 * Relays an upstream's answer with a status other than 2xx to a POST that held requests or that the relay partly
 * answered itself ({@link ResponseRelay} decides which): each request gets its answer through the error stage, built
 * by {@link UpstreamErrorAnswers}, and the upstream's body goes to the client as it came only when that is safe.
 */
@Component
class RefusalRelay {

	private static final Logger log = LoggerFactory.getLogger(RefusalRelay.class);

	private final FailedRequestAnswers failedRequestAnswers;

	private final OpenStreams openStreams;

	private final ResponseHead responseHead;

	RefusalRelay(FailedRequestAnswers failedRequestAnswers, OpenStreams openStreams, ResponseHead responseHead) {
		this.failedRequestAnswers = failedRequestAnswers;
		this.openStreams = openStreams;
		this.responseHead = responseHead;
	}

	/**
	 * The upstream answered a POST that held requests (or that the relay partly answered itself) with a status other
	 * than 2xx and a body that may hold JSON-RPC answers (or error interceptors want to see refusals): every request
	 * gets its answer, through the error stage, so that no JSON-RPC answer reaches the client past its stages whatever
	 * the status, and none is lost. The upstream's body is read within the usual bounds ({@code max-buffered-body},
	 * the non-streaming deadline); a JSON-RPC error in it answers the request it names (or, id-less, every forwarded
	 * request, under its own id); a request it does not answer with an error gets one naming the status
	 * ({@code upstream_error_status}), also when the body held a result for it ({@link UpstreamErrorAnswers}). The
	 * upstream's answer is relayed as it came (status, safe headers, body: a 401's JSON-RPC error, an HTML page) only
	 * when it is a page or holds exactly one JSON-RPC error for each request under its id and nothing else, no
	 * interceptor changed anything and the relay answered nothing itself; otherwise (logged at WARN when the body is
	 * replaced) the answers are the body, as JSON, with the upstream's status unless every answer is a result.
	 */
	Mono<Void> relay(RelayCall call, UpstreamResponse upstreamResponse, UpstreamBodyType bodyType,
			NonStreamingDeadline deadline) {
		Upstream upstream = call.upstream();
		HttpStatusCode status = upstreamResponse.statusCode();
		List<McpRequest> refused = call.pending().remaining();
		return BoundedBody
			.readAnswer(upstreamResponse.body(), upstream.maxBufferedBody(),
					() -> RelayFailures.upstreamResponseTooLarge(upstream.id(), upstream.maxBufferedBody()))
			.flatMap(body -> {
				deadline.release();
				UpstreamErrorAnswers.Answers answers = UpstreamErrorAnswers.of(body, bodyType, call.pending(),
						RelayFailures.upstreamErrorStatus(upstream.id(), status.value()));
				if (answers.replaced() != null) {
					log.warn("{} to '{}': the upstream's HTTP {} answer ({}) {}; it is not relayed, each request is "
							+ "answered with its error or the relay's", call.method(), upstream.id(), status.value(),
							bodyType.describe(), answers.replaced());
				}
				return failedRequestAnswers
					.answerRefusal(refused, answers.answers(), call.context(), status.value(),
							upstream.nonStreamingTimeout())
					.flatMap(afterStage -> {
						RelayResponse response = call.exchange().response();
						List<ObjectNode> localAnswers = call.plan().localAnswers();
						if (!afterStage.changed() && localAnswers.isEmpty() && answers.asCame()) {
							responseHead.write(call, upstreamResponse, false);
							response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
							return openStreams.clientTimed(call).write(response, body);
						}
						List<ObjectNode> all = new ArrayList<>(afterStage.answers());
						all.addAll(localAnswers);
						boolean allResults = all.stream().noneMatch(answer -> answer.has("error"));
						HttpStatus upstreamStatus = HttpStatus.resolve(status.value());
						return RelayAnswers.answer(response,
								allResults ? HttpStatus.OK : upstreamStatus != null ? upstreamStatus : HttpStatus.BAD_GATEWAY,
								all, call.plan().payload().batch() || !localAnswers.isEmpty(), HttpHeaders.EMPTY,
								openStreams.clientTimed(call));
					});
			});
	}

}
