package dev.mcprelay.bridge;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Predicate;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.sse.SseEvent;
import dev.mcprelay.sse.SseEventSplitter;
import dev.mcprelay.sse.SseEventWriter;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransportException;
import dev.mcprelay.transport.UpstreamTransportException.Kind;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Hands a 2026-07-28 server's answer to a bridged request on to the relay in the client's generation
 * ({@link SessionResults}): a JSON answer is read whole (within {@code max-buffered-body}) and written again; an
 * event stream is turned event by event as it arrives (each event within {@code max-buffered-body}, every buffer
 * released once split), comments and events that are no JSON object passing as they came; any other answer (an error
 * status, 202) is handed on untouched, since a JSON-RPC error reads the same in both generations. The relay then
 * relays the answer as it relays any server's: response stages, telemetry and timeouts see the client's version.
 *
 * <p>A result that asks the client for input ({@code resultType: input_required}) is refused
 * ({@link SessionResults}), unless the caller hands a continuation that carries it ({@link InputRounds}): the
 * continuation's events then take the result's place, and a JSON answer becomes an event stream to hold them.
 */
final class ModernAnswers {

	private ModernAnswers() {
	}

	/**
	 * @param headers the headers the client's answer carries besides its content type (its session id, for an
	 * {@code initialize})
	 * @param kept which of the server's messages reach the client (the rest are the bridge's own)
	 * @param until ends an event stream when it completes (the session ended, the request was cancelled);
	 * {@link Mono#never()} for none
	 * @param inputRequired the events that take the place of a result that asks for input; {@code null}: it is refused
	 */
	static Mono<Void> relay(UpstreamResponse response, String serverId, long maxBytes, HttpHeaders headers,
			Predicate<ObjectNode> kept, Mono<Void> until, Function<ObjectNode, Flux<byte[]>> inputRequired,
			Function<UpstreamResponse, Mono<Void>> handler) {
		MediaType type = response.contentType();
		if (!response.statusCode().is2xxSuccessful() || type == null) {
			return handler.apply(response);
		}
		if (MediaType.APPLICATION_JSON.isCompatibleWith(type)) {
			return BridgeBodies.read(response.body(), maxBytes, serverId).flatMap(body -> {
				ObjectNode message = parse(body);
				if (message != null && inputRequired != null && SessionResults.asksForInput(message)) {
					return handler.apply(LocalUpstreamResponse.eventStream(headers,
							inputRequired.apply(message).takeUntilOther(until)));
				}
				byte[] answer = message == null ? body : SessionResults.toSession(message, serverId).toString()
					.getBytes(StandardCharsets.UTF_8);
				return handler.apply(LocalUpstreamResponse.json(headers, answer));
			});
		}
		if (MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)) {
			return handler.apply(LocalUpstreamResponse.eventStream(headers,
					events(response, serverId, maxBytes, kept, inputRequired).takeUntilOther(until)));
		}
		return handler.apply(response);
	}

	/**
	 * The answer to a request the bridge sent again ({@link InputRounds}) as events of the client's stream, whatever its
	 * status: an event stream turned event by event, a JSON answer (a result, or a JSON-RPC error, as a server answers
	 * a {@code requestState} it refuses) as one event; any other answer fails the stream as a failure of the server's
	 * ({@code bridge_retry_failed}), its body released.
	 */
	static Flux<byte[]> asEvents(UpstreamResponse response, String serverId, long maxBytes,
			Function<ObjectNode, Flux<byte[]>> inputRequired) {
		MediaType type = response.contentType();
		if (type != null && response.statusCode().is2xxSuccessful() && MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)) {
			return events(response, serverId, maxBytes, any -> true, inputRequired);
		}
		if (type != null && MediaType.APPLICATION_JSON.isCompatibleWith(type)) {
			return BridgeBodies.read(response.body(), maxBytes, serverId).flatMapMany(body -> {
				ObjectNode message = parse(body);
				if (message == null) {
					return Flux.error(retryFailed(serverId, "answered with a body that is no JSON object"));
				}
				if (inputRequired != null && SessionResults.asksForInput(message)) {
					return inputRequired.apply(message);
				}
				return Flux.just(SseEventWriter.message(SessionResults.toSession(message, serverId).toString()));
			});
		}
		int status = response.statusCode().value();
		return response.releaseBody().thenMany(Flux.error(retryFailed(serverId, "answered with HTTP " + status
				+ (type == null ? "" : " and " + type))));
	}

	private static UpstreamTransportException retryFailed(String serverId, String what) {
		return new UpstreamTransportException(Kind.UPSTREAM_FAILED, "bridge_retry_failed", "MCP server '" + serverId
				+ "' " + what + " when the relay sent it a request again with the client's input.");
	}

	/**
	 * An event stream's events in the client's generation, as they arrive; each buffer released once split. The stream
	 * that answers a request ({@code inputRequired} given) fails when it ends before the answer came (the server
	 * crashed: a progress event, half an event, then the connection closed), as a stream that broke off
	 * ({@code upstream_stream_broken}), which the relay answers the client's request with, logs and counts: the bridged
	 * client cannot resume it (its {@code Last-Event-ID} stays with the relay), so an end would leave it unanswered.
	 */
	private static Flux<byte[]> events(UpstreamResponse response, String serverId, long maxBytes,
			Predicate<ObjectNode> kept, Function<ObjectNode, Flux<byte[]>> inputRequired) {
		AtomicBoolean answered = new AtomicBoolean(inputRequired == null);
		return split(response, maxBytes)
			.concatMap(event -> turn(event, serverId, kept, inputRequired, answered))
			.concatWith(Flux.defer(() -> answered.get() ? Flux.<byte[]>empty()
					: Flux.error(new UpstreamTransportException(Kind.UPSTREAM_FAILED, "upstream_stream_broken",
							"The stream from MCP server '" + serverId + "' broke off before the answer arrived."))));
	}

	/**
	 * The first answer (a message with an id and a result or an error) of an event stream, the rest cancelled; none
	 * when the stream ends before one. Each buffer is released once split.
	 */
	static Mono<byte[]> firstAnswer(UpstreamResponse response, long maxBytes) {
		return split(response, maxBytes).filter(SseEvent::isMessage).map(SseEvent::dataBytes).filter(data -> {
			ObjectNode message = parse(data);
			return message != null && message.has("id") && (message.has("result") || message.has("error"));
		}).next();
	}

	private static Flux<SseEvent> split(UpstreamResponse response, long maxBytes) {
		SseEventSplitter splitter = new SseEventSplitter(maxBytes);
		return response.body()
			.concatMapIterable(buffer -> {
				try {
					return splitter.split(buffer);
				}
				finally {
					DataBufferUtils.release(buffer);
				}
			})
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release);
	}

	/** One event in the client's generation: none when it is not for the client, the rounds for an input request. */
	private static Flux<byte[]> turn(SseEvent event, String serverId, Predicate<ObjectNode> kept,
			Function<ObjectNode, Flux<byte[]>> inputRequired, AtomicBoolean answered) {
		if (!event.isMessage()) {
			return Flux.just(event.raw());
		}
		ObjectNode message = parse(event.dataBytes());
		if (message == null) {
			return Flux.just(event.raw());
		}
		if (!kept.test(message)) {
			return Flux.empty();
		}
		if (message.has("id") && (message.has("result") || message.has("error"))) {
			answered.set(true);
		}
		if (inputRequired != null && SessionResults.asksForInput(message)) {
			return inputRequired.apply(message);
		}
		return Flux.just(SseEventWriter.substitute(event, SessionResults.toSession(message, serverId).toString()));
	}

	/** The JSON object {@code body} holds, or {@code null}. */
	static ObjectNode parse(byte[] body) {
		try {
			JsonNode node = JsonRpcParser.mapper().readTree(body);
			return node instanceof ObjectNode object ? object : null;
		}
		catch (java.io.IOException ex) {
			return null;
		}
	}

}
