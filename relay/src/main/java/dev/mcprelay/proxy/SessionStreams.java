package dev.mcprelay.proxy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.sse.SseEventWriter;
import dev.mcprelay.transport.HeldMessages;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * The GET streams open on this replica, by server and session, so that the relay can send a client messages of its
 * own on them: the notifications of an interceptor's streamed answer ({@code Outcome.respond(notifications, result)},
 * e.g. tool search's {@code notifications/tools/list_changed}) when the client's POST accepts only JSON. A message is
 * written between two upstream events, never inside one; what waits for a slow client is bounded, by
 * {@link #CAPACITY} groups of messages and {@code sessions.max-held-bytes} ({@link HeldMessages}): more is dropped,
 * logged and counted ({@link HeldOverflows#RELAY_MESSAGES}). A session's newest GET stream is the one that carries
 * them.
 */
@Component
public class SessionStreams {

	private static final Logger log = LoggerFactory.getLogger(SessionStreams.class);

	/** Messages of the relay's own that wait for one slow GET stream. */
	static final int CAPACITY = 64;

	private final Map<String, Stream> streams = new ConcurrentHashMap<>();

	private final long maxHeldBytes;

	private final HeldOverflows overflows;

	SessionStreams(RelayProperties properties, HeldOverflows overflows) {
		this.maxHeldBytes = properties.sessions().maxHeldBytes().toBytes();
		this.overflows = overflows;
	}

	/**
	 * The events of a GET stream, with the relay's own messages for its session merged in; they end when the upstream's
	 * do.
	 */
	Flux<byte[]> carry(String serverId, String sessionId, Flux<byte[]> events) {
		if (sessionId == null || sessionId.isEmpty()) {
			return events;
		}
		String key = serverId + '\n' + sessionId;
		Stream own = new Stream(new HeldMessages(CAPACITY, maxHeldBytes));
		return Flux.defer(() -> {
			streams.put(key, own);
			// held until the client's stream takes it, past the merge's own read-ahead
			return Flux.merge(events.doFinally(signal -> {
				streams.remove(key, own);
				synchronized (own) {
					own.sink.tryEmitComplete();
				}
			}), own.sink.asFlux()).doOnNext(own::taken);
		});
	}

	/**
	 * Sends {@code messages} on the session's GET stream, if one is open here and can hold them.
	 *
	 * @return whether a stream took them
	 */
	boolean send(String serverId, String sessionId, List<ObjectNode> messages) {
		if (sessionId == null || messages.isEmpty()) {
			return false;
		}
		Stream own = streams.get(serverId + '\n' + sessionId);
		if (own == null) {
			return false;
		}
		// One element of complete events: merged between two upstream events, never inside one, and kept together.
		ByteArrayOutputStream events = new ByteArrayOutputStream();
		for (ObjectNode message : messages) {
			events.writeBytes(SseEventWriter.message(new String(JsonRpcErrors.toBytes(message), StandardCharsets.UTF_8)));
		}
		byte[] group = events.toByteArray();
		synchronized (own) {
			if (own.held.hold(group.length)) {
				own.waiting.add(group);
				return own.sink.tryEmitNext(group).isSuccess();
			}
		}
		log.warn("A GET stream of '{}' holds as many of the relay's own messages for its client as it may ({}); {} "
				+ "message(s) were dropped", serverId, own.held.bound(), messages.size());
		overflows.overflowed(serverId, HeldOverflows.RELAY_MESSAGES);
		return false;
	}

	/**
	 * One GET stream's messages of the relay's own, what they hold, and which are still waiting (by identity: an array's
	 * hash is its identity); emitted under its lock.
	 */
	private record Stream(HeldMessages held, Sinks.Many<byte[]> sink, Set<byte[]> waiting) {

		Stream(HeldMessages held) {
			this(held, Sinks.many().unicast().onBackpressureBuffer(Queues.<byte[]>unbounded().get()),
					ConcurrentHashMap.newKeySet());
		}

		/** The client's stream took {@code event}: if it was one of the relay's own, its room is free again. */
		void taken(byte[] event) {
			if (!waiting.isEmpty() && waiting.remove(event)) {
				held.release(event.length);
			}
		}

	}

}
