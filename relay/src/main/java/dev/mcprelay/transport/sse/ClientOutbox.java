package dev.mcprelay.transport.sse;

import java.util.ArrayDeque;
import java.util.Deque;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

/**
 * What a bridged session's server sends that no client POST waits for (its own requests, notifications): delivered
 * on the client's GET stream, and held, up to {@link #CAPACITY} messages, while the client has none open or reads
 * slower than the server sends. Past that, the newest message is dropped and logged: a server request dropped this
 * way times out at the server, as one sent to a client that went away would. One GET at a time; the next may attach
 * once it ended.
 */
final class ClientOutbox {

	private static final Logger log = LoggerFactory.getLogger(ClientOutbox.class);

	/** Messages held for a client that has no GET stream open, or reads it slowly. */
	static final int CAPACITY = 256;

	private final String serverId;

	private final Deque<byte[]> held = new ArrayDeque<>();

	/** The current attachment, {@code 0} when none; guarded by {@code this}. */
	private long attachment;

	/** Attachments so far; guarded by {@code this}. */
	private long attachments;

	/** The attached GET stream once subscribed; guarded by {@code this}. */
	private FluxSink<byte[]> stream;

	/** Guarded by {@code this}. */
	private boolean closed;

	private long dropped;

	/** A thread is moving messages to the stream; guarded by {@code this}. */
	private boolean draining;

	/** More work arrived while a thread was draining; guarded by {@code this}. */
	private boolean missed;

	ClientOutbox(String serverId) {
		this.serverId = serverId;
	}

	/** Hands a message to the client's GET stream, or holds it until there is one. */
	void offer(byte[] message) {
		synchronized (this) {
			if (closed) {
				return;
			}
			if (held.size() >= CAPACITY) {
				dropped++;
				if (dropped == 1 || dropped % CAPACITY == 0) {
					log.warn("A session of '{}' has {} server message(s) no GET stream took; {} dropped so far",
							serverId, CAPACITY, dropped);
				}
				return;
			}
			held.add(message);
		}
		drain();
	}

	/** Whether a GET stream is attached now. */
	synchronized boolean isAttached() {
		return attachment != 0;
	}

	/**
	 * Attaches the client's GET stream, which takes what was held and then what comes, until the session ends (it
	 * completes). {@code 0} when another GET is attached; otherwise the attachment, for {@link #messages} and
	 * {@link #detach}.
	 */
	synchronized long attach() {
		if (attachment != 0) {
			return 0;
		}
		attachment = ++attachments;
		return attachment;
	}

	/** The messages of an attachment; subscribe once. */
	Flux<byte[]> messages(long of) {
		return Flux.create(sink -> {
			boolean complete;
			synchronized (this) {
				if (attachment != of) {
					sink.complete();
					return;
				}
				stream = sink;
				complete = closed;
			}
			sink.onRequest(n -> drain());
			if (complete) {
				sink.complete();
			}
		});
	}

	/** The GET stream of an attachment ended (or never started): the next GET may attach. */
	synchronized void detach(long of) {
		if (attachment == of) {
			attachment = 0;
			stream = null;
		}
	}

	/** The session ended: an attached stream completes, nothing more is held. */
	void close() {
		FluxSink<byte[]> attached;
		synchronized (this) {
			closed = true;
			held.clear();
			attached = stream;
		}
		if (attached != null) {
			attached.complete();
		}
	}

	/**
	 * Moves held messages to the attached stream as far as it has demand, one thread at a time (a thread that finds
	 * another draining leaves it the work), so that messages keep their order; never emits under the lock.
	 */
	private void drain() {
		synchronized (this) {
			if (draining) {
				missed = true;
				return;
			}
			draining = true;
		}
		while (true) {
			FluxSink<byte[]> sink;
			byte[] next;
			synchronized (this) {
				sink = stream;
				if (sink == null || sink.requestedFromDownstream() <= 0 || held.isEmpty()) {
					if (missed) {
						missed = false;
						continue;
					}
					draining = false;
					return;
				}
				next = held.poll();
			}
			sink.next(next);
		}
	}

}
