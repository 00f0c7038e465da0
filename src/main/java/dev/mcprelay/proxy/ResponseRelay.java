package dev.mcprelay.proxy;

import java.util.List;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.ClientResponse;

import dev.mcprelay.intercept.ResponseInterception;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.metrics.ExchangeRecord;
import reactor.core.publisher.Mono;

/**
 * Relays an upstream response to the client, by kind:
 * <ul>
 * <li>2xx {@code application/json} (not for DELETE): read whole within the non-streaming deadline and
 * {@code max-buffered-body}, checked to be JSON-RPC, run through the server-to-client stages, relayed byte for byte
 * unless an interceptor changed it; the relay's own answers to a batch join the upstream's;</li>
 * <li>2xx {@code text/event-stream}: handed to {@link SseStreamRelay}, event by event;</li>
 * <li>202 to a POST the relay partly answered itself (a batch): the relay's answers, as JSON;</li>
 * <li>anything else (202, 4xx, 5xx, a DELETE's answer): status, safe headers and body relayed untouched as the
 * bytes arrive, bounded by the streaming idle timeout.</li>
 * </ul>
 * A failure before the client's response is committed propagates, to be answered as a JSON-RPC error.
 */
@Component
class ResponseRelay {

	private final SseStreamRelay sseStreamRelay;

	private final ResponseInterception responseInterception;

	ResponseRelay(SseStreamRelay sseStreamRelay, ResponseInterception responseInterception) {
		this.sseStreamRelay = sseStreamRelay;
		this.responseInterception = responseInterception;
	}

	Mono<Void> relay(RelayCall call, ClientResponse upstreamResponse, NonStreamingDeadline deadline) {
		HttpStatusCode status = upstreamResponse.statusCode();
		ExchangeRecord.of(call.exchange()).forwarded(status.value());
		MediaType contentType = upstreamResponse.headers().contentType().orElse(null);
		if (status.is2xxSuccessful() && contentType != null) {
			if (contentType.isCompatibleWith(MediaType.TEXT_EVENT_STREAM)) {
				deadline.release();
				return sseStreamRelay.relay(call, upstreamResponse);
			}
			if (contentType.isCompatibleWith(MediaType.APPLICATION_JSON) && !HttpMethod.DELETE.equals(call.method())) {
				return relayJson(call, upstreamResponse, deadline);
			}
		}
		deadline.release();
		if (status.value() == 202 && call.plan() != null && !call.plan().localAnswers().isEmpty()) {
			return upstreamResponse.releaseBody()
				.then(RelayAnswers.answer(call.exchange().getResponse(), call.plan().localAnswerStatus(),
						call.plan().localAnswers(), true));
		}
		return relayUntouched(call, upstreamResponse);
	}

	private Mono<Void> relayJson(RelayCall call, ClientResponse upstreamResponse, NonStreamingDeadline deadline) {
		Upstream upstream = call.upstream();
		return BoundedBody
			.read(upstreamResponse.bodyToFlux(DataBuffer.class), upstream.maxBufferedBody(),
					() -> RelayFailures.upstreamResponseTooLarge(upstream.id(), upstream.maxBufferedBody()))
			.flatMap(body -> {
				JsonRpcPayload received;
				try {
					received = JsonRpcParser.parse(body);
				}
				catch (JsonRpcParseException ex) {
					return Mono.error(RelayFailures.upstreamInvalidResponse(upstream.id(), ex.getMessage()));
				}
				deadline.release();
				return responseInterception.apply(received, call.context(), call.pending(), false,
						upstream.nonStreamingTimeout());
			})
			.flatMap(messages -> {
				byte[] body = messages.bytesWith(call.plan() == null ? List.of() : call.plan().localAnswers());
				ServerHttpResponse response = call.exchange().getResponse();
				writeHead(upstreamResponse, response, false);
				response.getHeaders().setContentLength(body.length);
				return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
			});
	}

	private Mono<Void> relayUntouched(RelayCall call, ClientResponse upstreamResponse) {
		ServerHttpResponse response = call.exchange().getResponse();
		writeHead(upstreamResponse, response, true);
		return response.writeWith(upstreamResponse.bodyToFlux(DataBuffer.class)
			.timeout(call.upstream().streamingIdleTimeout())
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release));
	}

	static void writeHead(ClientResponse upstreamResponse, ServerHttpResponse response, boolean keepContentLength) {
		response.setStatusCode(upstreamResponse.statusCode());
		HttpHeaders upstreamHeaders = upstreamResponse.headers().asHttpHeaders();
		HeaderRules.copyResponseHeaders(upstreamHeaders, response.getHeaders(), keepContentLength);
	}

}
