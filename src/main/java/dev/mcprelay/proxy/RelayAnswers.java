package dev.mcprelay.proxy;

import java.util.List;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcErrors;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import reactor.core.publisher.Mono;

/** Writes answers the relay gives itself as a whole JSON response: failures, and interceptors' answers. */
public final class RelayAnswers {

	private RelayAnswers() {
	}

	/**
	 * Writes the failure as the whole response, answering each request of {@code payload} by its id (id null when
	 * there is no request). When the response is already committed nothing can be said any more: the connection is
	 * aborted by propagating the failure.
	 */
	public static Mono<Void> respond(ServerHttpResponse response, RelayFailure failure, JsonRpcPayload payload) {
		if (response.isCommitted()) {
			return Mono.error(failure);
		}
		List<JsonNode> ids = payload == null ? List.of() : payload.requestIds();
		byte[] body = JsonRpcErrors.body(ids, payload != null && payload.batch(), failure.code(), failure.getMessage(),
				failure.data());
		return write(response, failure.status(), body);
	}

	/**
	 * Writes {@code answers} as the whole response: a JSON array for a batch, else the one answer.
	 *
	 * @param status the HTTP status
	 */
	static Mono<Void> answer(ServerHttpResponse response, HttpStatus status, List<ObjectNode> answers,
			boolean batch) {
		JsonNode body = batch ? JsonNodeFactory.instance.arrayNode().addAll(answers) : answers.get(0);
		return write(response, status, JsonRpcErrors.toBytes(body));
	}

	private static Mono<Void> write(ServerHttpResponse response, HttpStatus status, byte[] body) {
		response.getHeaders().clear();
		response.setStatusCode(status);
		if (status == HttpStatus.METHOD_NOT_ALLOWED) {
			response.getHeaders().setAllow(RelayFailures.ENDPOINT_METHODS);
		}
		response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
		response.getHeaders().setContentLength(body.length);
		return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
	}

}
