package dev.mcprelay.bridge;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

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
import reactor.core.publisher.Sinks;

/**
 * Hands a bridged server's answer on to the relay in the client's generation, by the two ends' rules that the caller
 * gives ({@link Turn}: {@link SessionResults} for a 2026-07-28 server's answer to a 2025 client, {@link ModernResults}
 * for a 2025 server's answer to a 2026 client): a JSON answer is read whole (within {@code max-buffered-body}) and
 * written again; an event stream is turned event by event as it arrives (each event within {@code max-buffered-body},
 * every buffer released once split), comments and events that are no JSON object passing as they came; any other
 * answer (an error status, 202) is handed on untouched, since a JSON-RPC error reads the same in both generations. The
 * relay then relays the answer as it relays any server's: response stages, telemetry and timeouts see the client's
 * version.
 *
 * <p>A message the turn takes over ({@link Turn#takeOver}: a 2026 result that asks for input, carried by
 * {@link InputRounds}; a 2025 server's request) is replaced by the events the turn makes of it, and a JSON answer so
 * taken over becomes an event stream to hold them.
 */
final class BridgedAnswers {

	/**
	 * How one bridged exchange turns the server's messages into the client's generation.
	 *
	 * @param toClient a message of the server's as the client reads it (may change it in place)
	 * @param takeOver the events that replace a message the bridge handles itself, or {@code null} when the message is
	 * the client's ({@code toClient} then turns it); {@code null} for a turn that takes nothing over
	 * @param answersRequest whether the exchange answers a request of the client's (then an event stream that ends
	 * before the answer fails as one that broke off), rather than serving a stream of the server's own messages (a GET
	 * stream, a {@code subscriptions/listen})
	 */
	record Turn(UnaryOperator<ObjectNode> toClient, Function<ObjectNode, Flux<byte[]>> takeOver,
			boolean answersRequest) {

		/** The events that replace {@code message}, or {@code null}. */
		Flux<byte[]> taken(ObjectNode message) {
			return takeOver == null ? null : takeOver.apply(message);
		}

	}

	private BridgedAnswers() {
	}

	/**
	 * @param headers the headers the client's answer carries besides its content type (its session id, for an
	 * {@code initialize})
	 * @param kept which of the server's messages reach the client (the rest are the bridge's own)
	 * @param until ends an event stream when it completes (the session ended, the request was cancelled);
	 * {@link Mono#never()} for none
	 * @param turn how the server's messages become the client's
	 */
	static Mono<Void> relay(UpstreamResponse response, String serverId, long maxBytes, HttpHeaders headers,
			Predicate<ObjectNode> kept, Mono<Void> until, Turn turn, Function<UpstreamResponse, Mono<Void>> handler) {
		MediaType type = response.contentType();
		if (!response.statusCode().is2xxSuccessful() || type == null) {
			return handler.apply(response);
		}
		if (MediaType.APPLICATION_JSON.isCompatibleWith(type)) {
			return BridgeBodies.read(response.body(), maxBytes, serverId).flatMap(body -> {
				ObjectNode message = parse(body);
				Flux<byte[]> taken = message == null ? null : turn.taken(message);
				if (taken != null) {
					return handler.apply(LocalUpstreamResponse.eventStream(headers, taken.takeUntilOther(until)));
				}
				byte[] answer = message == null ? body : turn.toClient().apply(message).toString()
					.getBytes(StandardCharsets.UTF_8);
				return handler.apply(LocalUpstreamResponse.json(headers, answer));
			});
		}
		if (MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)) {
			return handler.apply(LocalUpstreamResponse.eventStream(headers,
					events(response, serverId, maxBytes, kept, turn).takeUntilOther(until)));
		}
		return handler.apply(response);
	}

	/**
	 * The answer to a request the bridge sent again ({@link InputRounds}) as events of the client's stream, whatever its
	 * status: an event stream turned event by event, a JSON answer (a result, or a JSON-RPC error, as a server answers
	 * a {@code requestState} it refuses) as one event; any other answer fails the stream as a failure of the server's
	 * ({@code bridge_retry_failed}), its body released.
	 */
	static Flux<byte[]> asEvents(UpstreamResponse response, String serverId, long maxBytes, Turn turn) {
		MediaType type = response.contentType();
		if (type != null && response.statusCode().is2xxSuccessful() && MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)) {
			return events(response, serverId, maxBytes, any -> true, turn);
		}
		if (type != null && MediaType.APPLICATION_JSON.isCompatibleWith(type)) {
			return BridgeBodies.read(response.body(), maxBytes, serverId).flatMapMany(body -> {
				ObjectNode message = parse(body);
				if (message == null) {
					return Flux.error(retryFailed(serverId, "answered with a body that is no JSON object"));
				}
				Flux<byte[]> taken = turn.taken(message);
				return taken != null ? taken
						: Flux.just(SseEventWriter.message(turn.toClient().apply(message).toString()));
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
	 * An event stream's events in the client's generation, as they arrive; each buffer released once split. A stream
	 * that answers a request ({@link Turn#answersRequest}) fails when it ends before the answer came (the server
	 * crashed: a progress event, half an event, then the connection closed), as a stream that broke off
	 * ({@code upstream_stream_broken}), which the relay answers the client's request with, logs and counts: the bridged
	 * client cannot resume it (its {@code Last-Event-ID} stays with the relay), so an end would leave it unanswered.
	 */
	private static Flux<byte[]> events(UpstreamResponse response, String serverId, long maxBytes,
			Predicate<ObjectNode> kept, Turn turn) {
		AtomicBoolean answered = new AtomicBoolean(!turn.answersRequest());
		return split(response, maxBytes)
			.concatMap(event -> turn(event, kept, turn, answered))
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

	/**
	 * One event in the client's generation: none when it is not the client's, the turn's own when it takes it over; an
	 * answer (an id with a result or an error) sets {@code answered}.
	 */
	private static Flux<byte[]> turn(SseEvent event, Predicate<ObjectNode> kept, Turn turn, AtomicBoolean answered) {
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
		Flux<byte[]> taken = turn.taken(message);
		return taken != null ? taken
				: Flux.just(SseEventWriter.substitute(event, turn.toClient().apply(message).toString()));
	}

	/**
	 * One exchange with the server ({@code exchange}, given the handler of its answer) as the events {@code reader}
	 * makes of its answer: the exchange ends when they do (cancelling them cancels it), and fails them when it fails
	 * before an answer.
	 */
	static Flux<byte[]> ofExchange(Function<Function<UpstreamResponse, Mono<Void>>, Mono<Void>> exchange,
			Function<UpstreamResponse, Flux<byte[]>> reader) {
		return Flux.defer(() -> {
			Sinks.One<Flux<byte[]>> answer = Sinks.one();
			Sinks.Empty<Void> read = Sinks.empty();
			Mono<Void> exchanged = exchange.apply(response -> {
				answer.tryEmitValue(reader.apply(response));
				return read.asMono();
			}).doFinally(signal -> answer.tryEmitEmpty());
			Flux<byte[]> events = answer.asMono().flatMapMany(Function.identity())
				.doFinally(signal -> read.tryEmitEmpty());
			return Flux.merge(exchanged.thenMany(Flux.<byte[]>empty()), events);
		});
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
