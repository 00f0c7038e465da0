package dev.mcprelay.proxy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.sse.SseEventWriter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * The GET streams open on this replica, by server and session, so that the relay can send a client messages of its
 * own on them: the notifications of an interceptor's streamed answer ({@code Outcome.respond(notifications, result)},
 * e.g. tool search's {@code notifications/tools/list_changed}) when the client's POST accepts only JSON. A message is
 * written between two upstream events, never inside one; up to {@link #CAPACITY} wait for a slow client, more are
 * dropped. A session's newest GET stream is the one that carries them.
 */
@Component
public class SessionStreams {

	/** Messages of the relay's own that wait for one slow GET stream. */
	static final int CAPACITY = 64;

	private final Map<String, Sinks.Many<byte[]>> streams = new ConcurrentHashMap<>();

	/**
	 * The events of a GET stream, with the relay's own messages for its session merged in; they end when the upstream's
	 * do.
	 */
	Flux<byte[]> carry(String serverId, String sessionId, Flux<byte[]> events) {
		if (sessionId == null || sessionId.isEmpty()) {
			return events;
		}
		String key = serverId + '\n' + sessionId;
		Sinks.Many<byte[]> own = Sinks.many().unicast().onBackpressureBuffer(Queues.<byte[]>get(CAPACITY).get());
		return Flux.defer(() -> {
			streams.put(key, own);
			return Flux.merge(events.doFinally(signal -> {
				streams.remove(key, own);
				synchronized (own) {
					own.tryEmitComplete();
				}
			}), own.asFlux());
		});
	}

	/**
	 * Sends {@code messages} on the session's GET stream, if one is open here.
	 *
	 * @return whether a stream took them
	 */
	boolean send(String serverId, String sessionId, List<ObjectNode> messages) {
		if (sessionId == null || messages.isEmpty()) {
			return false;
		}
		Sinks.Many<byte[]> own = streams.get(serverId + '\n' + sessionId);
		if (own == null) {
			return false;
		}
		// One element of complete events: merged between two upstream events, never inside one, and kept together.
		ByteArrayOutputStream events = new ByteArrayOutputStream();
		for (ObjectNode message : messages) {
			events.writeBytes(SseEventWriter.message(new String(JsonRpcErrors.toBytes(message), StandardCharsets.UTF_8)));
		}
		synchronized (own) {
			return own.tryEmitNext(events.toByteArray()).isSuccess();
		}
	}

}
