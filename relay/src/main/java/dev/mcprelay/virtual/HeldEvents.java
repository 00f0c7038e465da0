package dev.mcprelay.virtual;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.sse.SseEventWriter;
import reactor.core.publisher.FluxSink;

/**
 * The events of a {@link MergedSession} on their way to the client: held while the client has no GET stream attached
 * (what the members sent before it came) or reads slower than the members send, and handed to the attached stream as
 * far as it asks for them, in order. Bounded by {@link #MAX_EVENTS} and {@link #MAX_BYTES} (one event is always taken,
 * however large): past them a member's reader asks for nothing more until the client took some ({@link #add}). The
 * client's stream may go ({@link #detach}) and another come ({@link #attach}): what was not handed to the one is held
 * for the next. Safe from any thread; it never emits under a lock (its own, or its session's: {@link #add} leaves the
 * draining to its caller, once it let go of its own lock).
 */
final class HeldEvents {

	/** Events held at most. */
	static final int MAX_EVENTS = 256;

	/** Bytes held at most. */
	static final int MAX_BYTES = 512 * 1024;

	/** The "member" of the relay's own messages. */
	static final String RELAY = "";

	/**
	 * One event for the client: a member's, or a message of the relay's own.
	 *
	 * @param member whose it is ({@link #RELAY}: the relay's own)
	 * @param source the member's event ({@code null} for the relay's own)
	 * @param positions its id, made when it comes out ({@link MemberIds#eventId}): every member's position when it
	 * entered the session; {@code null} when it has none (the member gave it none)
	 * @param relayMessage the relay's own event, as the client gets it
	 */
	record Event(String member, AnswerRelay.ClientEvent source, Map<String, String> positions, byte[] relayMessage) {

		/** The event as the client gets it. */
		byte[] bytes() {
			return source == null ? relayMessage : source.bytes(positions == null ? null : MemberIds.eventId(positions));
		}

		/** How many bytes it holds, near enough. */
		int size() {
			return source == null ? relayMessage.length : source.size();
		}

		/** Whether it carries a request of the member's to the client. */
		boolean serverRequest() {
			return source != null && source.serverRequest();
		}

		/** Whether it carries a member's message at all. */
		boolean message() {
			return source != null && source.message();
		}

		/** Whether the member gave it an id, so that the client's next stream can ask for it again. */
		boolean resumable() {
			return positions != null;
		}

	}

	/** Guarded by {@code this}. */
	private final ArrayDeque<Event> events = new ArrayDeque<>();

	/** Guarded by {@code this}. */
	private long bytes;

	/** The positions in the id of the last event handed to the client's stream; guarded by {@code this}. */
	private Map<String, String> handedOn = Map.of();

	/** Members' readers waiting for room; guarded by {@code this}. */
	private final List<MemberStream.Events> waiting = new ArrayList<>();

	/** The client's stream once attached; guarded by {@code this}. */
	private FluxSink<byte[]> client;

	/** Guarded by {@code this}. */
	private boolean draining;

	/** Guarded by {@code this}. */
	private boolean missed;

	/**
	 * Adds {@code event} (the caller then {@link #drain drains}); whether there is room for more ({@code reader}, when
	 * not null, is woken once there is: {@link MemberStream.Events#resume}).
	 */
	synchronized boolean add(Event event, MemberStream.Events reader) {
		events.add(event);
		bytes += event.size();
		boolean room = hasRoom();
		if (!room && reader != null) {
			waiting.add(reader);
		}
		return room;
	}

	/**
	 * Adds {@code messages} of the relay's own (about a member joined again), after what is held, with no event id,
	 * and drains; nobody waits for them, and they are never counted as undelivered.
	 */
	void tell(List<ObjectNode> messages) {
		synchronized (this) {
			for (ObjectNode message : messages) {
				byte[] data = SseEventWriter.message(new String(JsonRpcErrors.toBytes(message), StandardCharsets.UTF_8));
				events.add(new Event(RELAY, null, null, data));
				bytes += data.length;
			}
		}
		drain();
	}

	/**
	 * Hands what is held, and what comes, to the client's stream {@code sink}, as far as it asks; in place of the stream
	 * it had, which gets nothing more.
	 */
	void attach(FluxSink<byte[]> sink) {
		synchronized (this) {
			client = sink;
		}
		sink.onRequest(n -> drain());
	}

	/** The client's stream {@code sink} ended: what comes is held again (unless another stream took its place). */
	synchronized void detach(FluxSink<byte[]> sink) {
		if (client == sink) {
			client = null;
		}
	}

	/**
	 * Drops what is held of {@code member}'s that it gave an id, which it is about to send again (the caller then
	 * {@link #drain drains}, which wakes readers that now have room).
	 */
	synchronized void drop(String member) {
		events.removeIf(event -> {
			boolean dropped = event.member().equals(member) && event.resumable();
			if (dropped) {
				bytes -= event.size();
			}
			return dropped;
		});
	}

	/**
	 * Takes out everything held of {@code member}'s, with or without an id: the client may no longer receive any of it
	 * ({@link MergedSession#keepOnly}); the caller counts it and then {@link #drain drains}.
	 */
	synchronized List<Event> withdraw(String member) {
		List<Event> taken = new ArrayList<>();
		events.removeIf(event -> {
			boolean withdrawn = event.member().equals(member);
			if (withdrawn) {
				bytes -= event.size();
				taken.add(event);
			}
			return withdrawn;
		});
		return taken;
	}

	/**
	 * Gives {@code members} the positions {@code from} (a position {@code null}: none) in the ids of the events held:
	 * members read again from there, whose events in between the session took but the client did not get.
	 */
	synchronized void restamp(Map<String, String> from) {
		for (Event event : events) {
			if (event.positions() != null) {
				from.forEach((member, position) -> {
					if (position == null) {
						event.positions().remove(member);
					}
					else if (event.positions().containsKey(member)) {
						event.positions().put(member, position);
					}
				});
			}
		}
	}

	/**
	 * Gives the ids of the events held the position {@code position} of the stream under {@code key}, which they do
	 * not name yet: a call's stream read again from there, whose events come after them ({@link MergedSession}).
	 */
	synchronized void carry(String key, String position) {
		for (Event event : events) {
			if (event.positions() != null) {
				event.positions().putIfAbsent(key, position);
			}
		}
	}

	/** The positions in the id of the last event handed to the client's stream (empty before one with an id). */
	synchronized Map<String, String> handedOn() {
		return handedOn;
	}

	/** Everything held, taken out; nothing more goes to the client's stream, and nobody waits for room any more. */
	synchronized List<Event> clear() {
		List<Event> left = new ArrayList<>(events);
		events.clear();
		bytes = 0;
		waiting.clear();
		client = null;
		return left;
	}

	private boolean hasRoom() {
		return events.size() < MAX_EVENTS && bytes < MAX_BYTES;
	}

	/**
	 * Moves events to the client's stream as far as it asks for them, one thread at a time (a thread that finds
	 * another draining leaves it the work), so that they keep their order; wakes the readers that waited for room as
	 * soon as there is some.
	 */
	void drain() {
		synchronized (this) {
			if (draining) {
				missed = true;
				return;
			}
			draining = true;
		}
		while (true) {
			FluxSink<byte[]> sink;
			Event next = null;
			List<MemberStream.Events> woken = List.of();
			synchronized (this) {
				if (!waiting.isEmpty() && hasRoom()) {
					woken = new ArrayList<>(waiting);
					waiting.clear();
				}
				sink = client;
				if (sink != null && sink.requestedFromDownstream() > 0 && !events.isEmpty()) {
					next = events.poll();
					bytes -= next.size();
					if (next.positions() != null) {
						handedOn = next.positions();
					}
				}
				else if (woken.isEmpty()) {
					if (missed) {
						missed = false;
						continue;
					}
					draining = false;
					return;
				}
			}
			woken.forEach(MemberStream.Events::resume);
			if (next != null) {
				sink.next(next.bytes());
			}
		}
	}

}
