package dev.mcprelay.proxy;

import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * How many bytes one stage of a stream holds for its client, against a bound, with a wait for room: a stage asks for
 * room before it takes more ({@link #room}), counts what it took ({@link #take}) and gives it back once it has passed
 * it on ({@link #release}), which lets the one waiting go on. Room is granted while what is held, with what is asked,
 * fits the bound, or when nothing is held, so that a piece larger than the bound passes alone (as
 * {@link dev.mcprelay.transport.HeldMessages} lets one message). One waiter at a time: a stage passes its pieces on in
 * order. Safe from any thread.
 */
final class ByteBudget {

	private final long maxBytes;

	/** Guarded by {@code this}. */
	private long held;

	/** The one waiting for room, told when there is; guarded by {@code this}. */
	private MonoSink<Void> waiting;

	/** How much it asked for, or {@link #DRAINED} when it waits for nothing to be held; guarded by {@code this}. */
	private long waitingSize;

	/** What the one waiting asks for when it waits for everything held to be given back ({@link #drained}). */
	private static final long DRAINED = -1;

	ByteBudget(long maxBytes) {
		this.maxBytes = maxBytes;
	}

	/**
	 * Completes once {@code size} bytes fit, having taken them (with {@code 0}: once what is held fits the bound, taking
	 * nothing). Cancelling it stops the wait.
	 */
	Mono<Void> room(long size) {
		return Mono.create(sink -> {
			synchronized (this) {
				if (!fits(size)) {
					waiting = sink;
					waitingSize = size;
					sink.onCancel(this::stopWaiting);
					return;
				}
				held += size;
			}
			sink.success();
		});
	}

	/**
	 * Completes once nothing is held (at once when nothing is), taking nothing: for a stage that has passed on its last
	 * piece and is done only when that has passed further. Cancelling it stops the wait.
	 */
	Mono<Void> drained() {
		return Mono.create(sink -> {
			synchronized (this) {
				if (held > 0) {
					waiting = sink;
					waitingSize = DRAINED;
					sink.onCancel(this::stopWaiting);
					return;
				}
			}
			sink.success();
		});
	}

	/** Counts {@code size} bytes held that are here already, whether they fit or not. */
	synchronized void take(long size) {
		held += size;
	}

	/** Gives back {@code size} bytes that were taken: the one waiting goes on if it fits now. */
	void release(long size) {
		MonoSink<Void> admitted = null;
		synchronized (this) {
			held -= size;
			if (waiting != null && (waitingSize == DRAINED ? held <= 0 : fits(waitingSize))) {
				held += Math.max(0, waitingSize);
				admitted = waiting;
				waiting = null;
			}
		}
		if (admitted != null) {
			admitted.success();
		}
	}

	private boolean fits(long size) {
		return held <= 0 || held + size <= maxBytes;
	}

	private synchronized void stopWaiting() {
		waiting = null;
	}

}
