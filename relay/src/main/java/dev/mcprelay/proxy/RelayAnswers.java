package dev.mcprelay.proxy;

import java.util.List;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
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
		return respond(response, failure, payload, HttpHeaders.EMPTY);
	}

	/**
	 * Writes the failure, for no request in particular (id null), as the whole response, with {@code headers} added
	 * (a {@code WWW-Authenticate} challenge, a {@code Retry-After}).
	 */
	public static Mono<Void> respondWith(ServerHttpResponse response, RelayFailure failure, HttpHeaders headers) {
		return respond(response, failure, null, headers);
	}

	private static Mono<Void> respond(ServerHttpResponse response, RelayFailure failure, JsonRpcPayload payload,
			HttpHeaders headers) {
		if (response.isCommitted()) {
			return Mono.error(failure);
		}
		List<JsonNode> ids = payload == null ? List.of() : payload.requestIds();
		byte[] body = JsonRpcErrors.body(ids, payload != null && payload.batch(), failure.code(), failure.getMessage(),
				failure.data());
		return write(response, failure.status(), body, headers);
	}

	/**
	 * Writes {@code answers} as the whole response: a JSON array for a batch, else the one answer.
	 *
	 * @param status the HTTP status
	 */
	public static Mono<Void> answer(ServerHttpResponse response, HttpStatus status, List<ObjectNode> answers,
			boolean batch) {
		return answer(response, status, answers, batch, HttpHeaders.EMPTY);
	}

	/** As {@link #answer(ServerHttpResponse, HttpStatus, List, boolean)}, with {@code headers} added. */
	public static Mono<Void> answer(ServerHttpResponse response, HttpStatus status, List<ObjectNode> answers, boolean batch,
			HttpHeaders headers) {
		JsonNode body = batch ? JsonNodeFactory.instance.arrayNode().addAll(answers) : answers.get(0);
		return write(response, status, JsonRpcErrors.toBytes(body), headers);
	}

	/**
	 * Writes {@code messages} as the whole response, an SSE stream of one {@code message} event each, in order: how an
	 * interceptor's notifications reach the client ahead of its result.
	 */
	public static Mono<Void> stream(ServerHttpResponse response, List<ObjectNode> messages) {
		java.io.ByteArrayOutputStream events = new java.io.ByteArrayOutputStream();
		for (ObjectNode message : messages) {
			events.writeBytes(dev.mcprelay.sse.SseEventWriter.message(
					new String(JsonRpcErrors.toBytes(message), java.nio.charset.StandardCharsets.UTF_8)));
		}
		byte[] body = events.toByteArray();
		response.getHeaders().clear();
		response.setStatusCode(HttpStatus.OK);
		response.getHeaders().setContentType(MediaType.TEXT_EVENT_STREAM);
		response.getHeaders().setCacheControl("no-cache");
		response.getHeaders().setContentLength(body.length);
		return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
	}

	private static Mono<Void> write(ServerHttpResponse response, HttpStatus status, byte[] body, HttpHeaders headers) {
		response.getHeaders().clear();
		response.getHeaders().putAll(headers);
		response.setStatusCode(status);
		if (status == HttpStatus.METHOD_NOT_ALLOWED) {
			response.getHeaders().setAllow(RelayFailures.ENDPOINT_METHODS);
		}
		response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
		response.getHeaders().setContentLength(body.length);
		return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
	}

}
