package dev.mcprelay.virtual;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import reactor.core.publisher.FluxSink;

/**
 * The events of a {@link MergedSession} on their way to the client: held while the client has no GET stream attached
 * (what the members sent before it came) or reads slower than the members send, and handed to the attached stream as
 * far as it asks for them, in order. Bounded by {@link #MAX_EVENTS} and {@link #MAX_BYTES} (one event is always taken,
 * however large): past them a member's reader asks for nothing more until the client took some ({@link #add}). Safe
 * from any thread; it never emits under a lock (its own, or its session's: {@link #add} leaves the draining to its
 * caller, once it let go of its own lock).
 */
final class HeldEvents {

	/** Events held at most. */
	static final int MAX_EVENTS = 256;

	/** Bytes held at most. */
	static final int MAX_BYTES = 512 * 1024;

	/**
	 * One event for the client.
	 *
	 * @param member whose it is ({@code ""}: the relay's own)
	 * @param bytes the event as the client gets it
	 * @param serverRequest whether it carries a request of the member's to the client
	 * @param message whether it carries a member's message at all
	 * @param resumable whether the member gave it an id, so that the client's next stream can ask for it again
	 */
	record Event(String member, byte[] bytes, boolean serverRequest, boolean message, boolean resumable) {
	}

	/** Guarded by {@code this}. */
	private final ArrayDeque<Event> events = new ArrayDeque<>();

	/** Guarded by {@code this}. */
	private long bytes;

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
		bytes += event.bytes().length;
		boolean room = hasRoom();
		if (!room && reader != null) {
			waiting.add(reader);
		}
		return room;
	}

	/** Hands what is held, and what comes, to the client's stream, as far as it asks. */
	void attach(FluxSink<byte[]> sink) {
		synchronized (this) {
			client = sink;
		}
		sink.onRequest(n -> drain());
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
	 * another draining leaves it the work), so that they keep their order; wakes the readers that waited for room.
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
			Event next;
			List<MemberStream.Events> woken = List.of();
			synchronized (this) {
				sink = client;
				if (sink == null || sink.requestedFromDownstream() <= 0 || events.isEmpty()) {
					if (missed) {
						missed = false;
						continue;
					}
					draining = false;
					return;
				}
				next = events.poll();
				bytes -= next.bytes().length;
				if (!waiting.isEmpty() && hasRoom()) {
					woken = new ArrayList<>(waiting);
					waiting.clear();
				}
			}
			woken.forEach(MemberStream.Events::resume);
			sink.next(next.bytes());
		}
	}

}
