package dev.mcprelay.proxy;

import java.util.List;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.jsonrpc.JsonRpcErrors;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import reactor.core.publisher.Mono;

/** Answers a client with a {@link RelayFailure}: its HTTP status and a JSON-RPC error body. */
final class FailureResponder {

	private FailureResponder() {
	}

	/**
	 * Writes the failure as the whole response, answering each request of {@code payload} by its id (id null when
	 * there is no request). When the response is already committed nothing can be said any more: the connection is
	 * aborted by propagating the failure.
	 */
	static Mono<Void> respond(ServerHttpResponse response, RelayFailure failure, JsonRpcPayload payload) {
		if (response.isCommitted()) {
			return Mono.error(failure);
		}
		List<JsonNode> ids = payload == null ? List.of() : payload.requestIds();
		byte[] body = JsonRpcErrors.body(ids, payload != null && payload.batch(), failure.code(), failure.getMessage(),
				failure.data());
		response.getHeaders().clear();
		response.setStatusCode(failure.status());
		response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
		response.getHeaders().setContentLength(body.length);
		DataBuffer buffer = response.bufferFactory().wrap(body);
		return response.writeWith(Mono.just(buffer));
	}

}
