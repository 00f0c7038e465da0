package dev.mcprelay.proxy;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.ClientResponse;

import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import reactor.core.publisher.Mono;

/**
 * Relays an upstream response to the client, by kind:
 * <ul>
 * <li>2xx {@code application/json} (not for DELETE): read whole within the non-streaming deadline and
 * {@code max-buffered-body}, checked to be JSON-RPC, relayed byte for byte;</li>
 * <li>2xx {@code text/event-stream}: handed to {@link SseStreamRelay}, event by event;</li>
 * <li>anything else (202, 4xx, 5xx, a DELETE's answer): status, safe headers and body relayed untouched as the
 * bytes arrive, bounded by the streaming idle timeout.</li>
 * </ul>
 * A failure before the client's response is committed propagates, to be answered as a JSON-RPC error.
 */
@Component
class ResponseRelay {

	private final SseStreamRelay sseStreamRelay;

	ResponseRelay(SseStreamRelay sseStreamRelay) {
		this.sseStreamRelay = sseStreamRelay;
	}

	Mono<Void> relay(RelayCall call, ClientResponse upstreamResponse, NonStreamingDeadline deadline) {
		HttpStatusCode status = upstreamResponse.statusCode();
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
		return relayUntouched(call, upstreamResponse);
	}

	private Mono<Void> relayJson(RelayCall call, ClientResponse upstreamResponse, NonStreamingDeadline deadline) {
		Upstream upstream = call.upstream();
		return BoundedBody
			.read(upstreamResponse.bodyToFlux(DataBuffer.class), upstream.maxBufferedBody(),
					() -> RelayFailures.upstreamResponseTooLarge(upstream.id(), upstream.maxBufferedBody()))
			.flatMap(body -> {
				try {
					JsonRpcParser.parse(body);
				}
				catch (JsonRpcParseException ex) {
					return Mono.error(RelayFailures.upstreamInvalidResponse(upstream.id(), ex.getMessage()));
				}
				deadline.release();
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
