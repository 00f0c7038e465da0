package dev.mcprelay.virtual;

import java.time.Duration;
import java.util.function.Consumer;

import dev.mcprelay.http.RelayExchange;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;

/**
 * The client's side of a {@link MergedSession}: the client's GET stream that takes the session's {@link HeldEvents},
 * one at a time. While none is attached the session is held: from the join until the client's first GET, and again
 * from the end of one GET until the next (a client reopens its stream after a network cut, a proxy's idle timeout, a
 * restart of its own), each time for at most {@link #WAIT}, after which the session is ended ({@code expired}, with
 * the reason to count what it still holds by). The session is told when a GET attaches ({@link #attach}'s
 * {@code arrived}) and when one ends or another takes its place ({@code gone}), in the order they come and go: it is
 * called back under this one's lock (and never calls this one under its own). Safe from any thread; it completes no
 * stream under its lock.
 */
final class ClientStream {

	/** How long the session is held for a client that has no GET stream open (here). */
	static final Duration WAIT = Duration.ofSeconds(10);

	private final HeldEvents held;

	private final Runnable gone;

	private final Consumer<String> expired;

	/** Guarded by {@code this}. */
	private FluxSink<byte[]> sink;

	/** The exchange of the attached GET; guarded by {@code this}. */
	private RelayExchange exchange;

	/** Whether a GET was attached before; guarded by {@code this}. */
	private boolean hadClient;

	/** Guarded by {@code this}. */
	private boolean ended;

	private final Disposable.Swap timer = Disposables.swap();

	/**
	 * @param gone told when a GET ends, or another takes its place
	 * @param expired ends the session when no GET came within {@link #WAIT}, with the reason its undelivered events
	 * are counted under ({@link UndeliveredMessages#NO_CLIENT_STREAM}, or {@link UndeliveredMessages#CLIENT_GONE} when
	 * a GET had come)
	 */
	ClientStream(HeldEvents held, Runnable gone, Consumer<String> expired) {
		this.held = held;
		this.gone = gone;
		this.expired = expired;
		hold();
	}

	/**
	 * The events for the client's GET {@code getExchange}: what was held, then what comes, at the client's pace; in
	 * place of the GET attached before, if any (it ends). When it ends, the session is held again.
	 *
	 * @param arrived told once the GET is attached, before it takes anything
	 */
	Flux<byte[]> attach(RelayExchange getExchange, Runnable arrived) {
		return Flux.<byte[]>create(next -> {
			FluxSink<byte[]> previous = null;
			boolean open;
			synchronized (this) {
				open = !ended;
				if (open) {
					previous = release();
					sink = next;
					exchange = getExchange;
					hadClient = true;
					arrived.run();
				}
			}
			if (!open) {
				next.complete();
				return;
			}
			timer.update(Disposables.disposed());
			next.onDispose(() -> detached(next));
			held.attach(next);
			if (previous != null) {
				previous.complete();
			}
		});
	}

	/**
	 * Another GET of the client's came: the one attached, if any, gets nothing more and ends; what comes is held for
	 * the new one until it {@link #attach attaches}, as after a GET ends.
	 */
	void supersede() {
		FluxSink<byte[]> previous;
		synchronized (this) {
			previous = ended ? null : release();
		}
		if (previous != null) {
			previous.complete();
			hold();
		}
	}

	/**
	 * The attached GET's reader took nothing for a member's {@code timeouts.client-write}, with the session holding all
	 * it may: its connection is closed, as a direct server's relay closes it (the session is held for its next GET).
	 */
	void stalled() {
		RelayExchange stalled;
		synchronized (this) {
			stalled = exchange;
		}
		if (stalled != null) {
			stalled.record().failed(false, "client_write_timeout");
			stalled.response().closeConnection();
		}
	}

	/** Whether a client GET is attached now. */
	synchronized boolean attached() {
		return exchange != null;
	}

	/** The session ended: the attached GET ends, no GET attaches any more. */
	void end() {
		FluxSink<byte[]> attachedSink;
		synchronized (this) {
			ended = true;
			attachedSink = sink;
			sink = null;
			exchange = null;
		}
		timer.dispose();
		if (attachedSink != null) {
			attachedSink.complete();
		}
	}

	private void detached(FluxSink<byte[]> endedSink) {
		synchronized (this) {
			if (sink != endedSink) {
				return;
			}
			release();
		}
		hold();
	}

	/**
	 * Lets go of the attached GET, if any, and tells the session (under the lock: the session hears of GETs in the
	 * order they come and go); the GET's stream, for the caller to complete.
	 */
	private FluxSink<byte[]> release() {
		FluxSink<byte[]> released = sink;
		if (released != null) {
			sink = null;
			exchange = null;
			held.detach(released);
			gone.run();
		}
		return released;
	}

	private void hold() {
		timer.update(Mono.delay(WAIT).subscribe(tick -> expire()));
	}

	private void expire() {
		String reason;
		synchronized (this) {
			if (sink != null || ended) {
				return;
			}
			reason = hadClient ? UndeliveredMessages.CLIENT_GONE : UndeliveredMessages.NO_CLIENT_STREAM;
		}
		expired.accept(reason);
	}

}
