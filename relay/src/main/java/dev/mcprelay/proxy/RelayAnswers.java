package dev.mcprelay.proxy;

import java.util.List;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.support.Netty4HeadersAdapter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.http.RelayResponse;
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
	public static Mono<Void> respond(RelayResponse response, RelayFailure failure, JsonRpcPayload payload) {
		return respond(response, failure, payload, HttpHeaders.EMPTY);
	}

	/**
	 * Writes the failure, for no request in particular (id null), as the whole response, with {@code headers} added
	 * (a {@code WWW-Authenticate} challenge, a {@code Retry-After}).
	 */
	public static Mono<Void> respondWith(RelayResponse response, RelayFailure failure, HttpHeaders headers) {
		return respond(response, failure, null, headers);
	}

	private static Mono<Void> respond(RelayResponse response, RelayFailure failure, JsonRpcPayload payload,
			HttpHeaders headers) {
		if (response.committed()) {
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
	public static Mono<Void> answer(RelayResponse response, HttpStatus status, List<ObjectNode> answers,
			boolean batch) {
		return answer(response, status, answers, batch, HttpHeaders.EMPTY);
	}

	/** As {@link #answer(RelayResponse, HttpStatus, List, boolean)}, with {@code headers} added. */
	public static Mono<Void> answer(RelayResponse response, HttpStatus status, List<ObjectNode> answers, boolean batch,
			HttpHeaders headers) {
		return answer(response, status, answers, batch, headers, WholeAnswerWriter.UNTIMED);
	}

	/**
	 * As {@link #answer(RelayResponse, HttpStatus, List, boolean, HttpHeaders)}, the body written by {@code writer}
	 * ({@link OpenStreams#clientTimed}: an answer that may be large, cut when the client takes none of it).
	 */
	public static Mono<Void> answer(RelayResponse response, HttpStatus status, List<ObjectNode> answers, boolean batch,
			HttpHeaders headers, WholeAnswerWriter writer) {
		JsonNode body = batch ? JsonNodeFactory.instance.arrayNode().addAll(answers) : answers.get(0);
		return write(response, status, JsonRpcErrors.toBytes(body), headers, writer);
	}

	/**
	 * Writes {@code messages} as the whole response, an SSE stream of one {@code message} event each, in order: how an
	 * interceptor's notifications reach the client ahead of its result.
	 */
	public static Mono<Void> stream(RelayResponse response, List<ObjectNode> messages) {
		return stream(response, messages, WholeAnswerWriter.UNTIMED);
	}

	/** As {@link #stream(RelayResponse, List)}, the body written by {@code writer}. */
	public static Mono<Void> stream(RelayResponse response, List<ObjectNode> messages, WholeAnswerWriter writer) {
		java.io.ByteArrayOutputStream events = new java.io.ByteArrayOutputStream();
		for (ObjectNode message : messages) {
			events.writeBytes(dev.mcprelay.sse.SseEventWriter.message(
					new String(JsonRpcErrors.toBytes(message), java.nio.charset.StandardCharsets.UTF_8)));
		}
		byte[] body = events.toByteArray();
		HttpHeaders answerHeaders = cleared(response);
		response.status(HttpStatus.OK);
		answerHeaders.setContentType(MediaType.TEXT_EVENT_STREAM);
		answerHeaders.setCacheControl("no-cache");
		answerHeaders.setContentLength(body.length);
		return writer.write(response, body);
	}

	private static Mono<Void> write(RelayResponse response, HttpStatus status, byte[] body, HttpHeaders headers) {
		return write(response, status, body, headers, WholeAnswerWriter.UNTIMED);
	}

	private static Mono<Void> write(RelayResponse response, HttpStatus status, byte[] body, HttpHeaders headers,
			WholeAnswerWriter writer) {
		HttpHeaders answerHeaders = cleared(response);
		answerHeaders.putAll(headers);
		response.status(status);
		if (status == HttpStatus.METHOD_NOT_ALLOWED) {
			answerHeaders.setAllow(RelayFailures.ENDPOINT_METHODS);
		}
		answerHeaders.setContentType(MediaType.APPLICATION_JSON);
		answerHeaders.setContentLength(body.length);
		return writer.write(response, body);
	}

	/** The response's headers, emptied, seen as Spring's (a view, for its setters' formats). */
	private static HttpHeaders cleared(RelayResponse response) {
		response.headers().clear();
		return new HttpHeaders(new Netty4HeadersAdapter(response.headers()));
	}

}
