package dev.mcprelay.transport.sse;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.mcprelay.sse.SseEventWriter;
import dev.mcprelay.transport.HeldMessages;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

/**
 * What a bridged session's server sends that no client POST waits for (its own requests, notifications): delivered
 * on the client's GET stream as {@code message} events, and held while the client has none open or reads slower than
 * the server sends, up to {@link #CAPACITY} messages and the session's byte bound ({@link HeldMessages}). Past that,
 * the newest message is dropped, logged and counted: a server request dropped this way times out at the server, as
 * one sent to a client that went away would. The stream's keepalive comments reach an attached GET stream too (so that
 * it does not go idle while the server is alive), and only when nothing else waits; they are never held for a client
 * that has no stream open. One GET at a time; the next may attach once it ended.
 */
final class ClientOutbox {

	private static final Logger log = LoggerFactory.getLogger(ClientOutbox.class);

	/** Messages held for a client that has no GET stream open, or reads it slowly. */
	static final int CAPACITY = 256;

	private final String serverId;

	/** SSE events, each as the client gets it; guarded by {@code this}. */
	private final Deque<byte[]> queue = new ArrayDeque<>();

	private final HeldMessages held;

	private final Runnable onOverflow;

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

	/**
	 * @param held what it may hold ({@link #CAPACITY} messages and a byte bound)
	 * @param onOverflow told of each message dropped because the queue was full
	 */
	ClientOutbox(String serverId, HeldMessages held, Runnable onOverflow) {
		this.serverId = serverId;
		this.held = held;
		this.onOverflow = onOverflow;
	}

	/** Hands a message to the client's GET stream, or holds it until there is one; drops it when the queue is full. */
	void offer(byte[] message) {
		byte[] event = SseEventWriter.message(new String(message, StandardCharsets.UTF_8));
		synchronized (this) {
			if (closed) {
				return;
			}
			if (!held.hold(event.length)) {
				dropped++;
				if (dropped == 1 || dropped % CAPACITY == 0) {
					log.warn("A session of '{}' holds as many server messages for its client's GET stream as it may "
							+ "({}); the newest was dropped, {} so far", serverId, held.bound(), dropped);
				}
				onOverflow.run();
				return;
			}
			queue.add(event);
		}
		drain();
	}

	/** The server's stream is alive ({@code comment}, raw): passed to an attached GET stream when nothing else waits. */
	void keepalive(byte[] comment) {
		synchronized (this) {
			if (closed || stream == null || !held.isEmpty() || !held.hold(comment.length)) {
				return;
			}
			queue.add(comment);
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

	/** The SSE events of an attachment, each as the client gets it; subscribe once. */
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
			queue.forEach(event -> held.release(event.length));
			queue.clear();
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
				if (sink == null || sink.requestedFromDownstream() <= 0 || queue.isEmpty()) {
					if (missed) {
						missed = false;
						continue;
					}
					draining = false;
					return;
				}
				next = queue.poll();
				held.release(next.length);
			}
			sink.next(next);
		}
	}

}
