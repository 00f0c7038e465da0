package dev.mcprelay.bridge;

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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Hands a 2026-07-28 server's answer to a bridged request on to the relay in the client's generation
 * ({@link SessionResults}): a JSON answer is read whole (within {@code max-buffered-body}) and written again; an
 * event stream is turned event by event as it arrives (each event within {@code max-buffered-body}, every buffer
 * released once split), comments and events that are no JSON object passing as they came; any other answer (an error
 * status, 202) is handed on untouched, since a JSON-RPC error reads the same in both generations. The relay then
 * relays the answer as it relays any server's: response stages, telemetry and timeouts see the client's version.
 */
final class ModernAnswers {

	private ModernAnswers() {
	}

	/**
	 * @param headers the headers the client's answer carries besides its content type (its session id, for an
	 * {@code initialize})
	 * @param kept which of the server's messages reach the client (the rest are the bridge's own)
	 * @param until ends an event stream when it completes (the session ended); {@link Mono#never()} for none
	 */
	static Mono<Void> relay(UpstreamResponse response, String serverId, long maxBytes, HttpHeaders headers,
			Predicate<ObjectNode> kept, Mono<Void> until, Function<UpstreamResponse, Mono<Void>> handler) {
		MediaType type = response.contentType();
		if (!response.statusCode().is2xxSuccessful() || type == null) {
			return handler.apply(response);
		}
		if (MediaType.APPLICATION_JSON.isCompatibleWith(type)) {
			return BridgeBodies.read(response.body(), maxBytes, serverId).flatMap(body -> {
				ObjectNode message = parse(body);
				byte[] answer = message == null ? body : SessionResults.toSession(message, serverId).toString()
					.getBytes(java.nio.charset.StandardCharsets.UTF_8);
				return handler.apply(LocalUpstreamResponse.json(headers, answer));
			});
		}
		if (MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)) {
			SseEventSplitter splitter = new SseEventSplitter(maxBytes);
			Flux<byte[]> events = response.body()
				.concatMapIterable(buffer -> {
					try {
						return splitter.split(buffer);
					}
					finally {
						DataBufferUtils.release(buffer);
					}
				})
				.doOnDiscard(DataBuffer.class, DataBufferUtils::release)
				.handle((SseEvent event, reactor.core.publisher.SynchronousSink<byte[]> sink) -> {
					byte[] turned = turn(event, serverId, kept);
					if (turned != null) {
						sink.next(turned);
					}
				})
				.takeUntilOther(until);
			return handler.apply(LocalUpstreamResponse.eventStream(headers, events));
		}
		return handler.apply(response);
	}

	/** One event in the client's generation; {@code null} when it is not for the client. */
	private static byte[] turn(SseEvent event, String serverId, Predicate<ObjectNode> kept) {
		if (!event.isMessage()) {
			return event.raw();
		}
		ObjectNode message = parse(event.dataBytes());
		if (message == null) {
			return event.raw();
		}
		if (!kept.test(message)) {
			return null;
		}
		return SseEventWriter.substitute(event, SessionResults.toSession(message, serverId).toString());
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
