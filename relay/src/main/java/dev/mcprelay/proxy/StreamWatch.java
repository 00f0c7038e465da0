package dev.mcprelay.proxy;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

import org.springframework.core.io.buffer.DataBuffer;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Watches an upstream body on its way to a client and tells whose silence ended it. The relay reads the upstream
 * only as fast as the client takes what it reads (with a bounded read-ahead), so two clocks are needed:
 * <ul>
 * <li>while the relay has asked for more and waits, the <b>upstream</b> is silent: past {@code upstreamIdle} the body
 * fails with a {@link TimeoutException}, the upstream's fault;</li>
 * <li>while the relay asks for nothing because the client has not taken what it holds, the <b>client</b> is awaited:
 * past {@code clientWrite} without taking anything the body fails with a {@link ClientStalledException}, the client's
 * fault; but not while the response has no reader at all (a stream held for a reader still to come, whose holder
 * bounds what it holds): no client stream, no stalled client.</li>
 * </ul>
 * The clock that runs restarts with every chunk and every request, and the client's also whenever the client takes
 * bytes it was handed ({@link #clientTook}, told by {@link ClientWriteWindow}): the client's clock measures the
 * client's progress, not how often the relay asks its upstream for more, which it does in bursts
 * ({@link EventReadAhead} asks again once most of the groups it holds went out), so a client that reads slowly but
 * steadily is never taken for one that stopped. Where nobody tells of the client's progress (a body relayed untouched), the relay's requests, which
 * its connection's writes make, are the only sign of it. On either failure the upstream body is cancelled.
 *
 * <p>A whole answer (a JSON body the relay holds entire, {@link ClientWriteWindow#whole}) has no upstream left to wait
 * for: its watch ({@link #watchClient}) runs the client's clock alone, by the same rule, from the first buffer handed to
 * the connection until the last is written, and ends the write with the same {@link ClientStalledException}.
 */
final class StreamWatch {

	private final Duration upstreamIdle;

	private final Duration clientWrite;

	private final Scheduler timer;

	private final Sinks.Empty<Void> expired = Sinks.empty();

	/** Guarded by {@code this}. */
	private long outstanding;

	/** Guarded by {@code this}. */
	private Disposable clock;

	/** Guarded by {@code this}; set once a clock expired. */
	private Throwable failure;

	/** Whether a reader is there to take what is written ({@link dev.mcprelay.http.RelayResponse#readerPresent}). */
	private final java.util.function.BooleanSupplier readerPresent;

	StreamWatch(Duration upstreamIdle, Duration clientWrite, Scheduler timer) {
		this(upstreamIdle, clientWrite, timer, () -> true);
	}

	StreamWatch(Duration upstreamIdle, Duration clientWrite, Scheduler timer,
			java.util.function.BooleanSupplier readerPresent) {
		this.upstreamIdle = upstreamIdle;
		this.clientWrite = clientWrite;
		this.timer = timer;
		this.readerPresent = readerPresent;
	}

	/**
	 * A watch for one body written to {@code response}, its clocks on Reactor's parallel scheduler: while the response
	 * has no reader yet ({@link dev.mcprelay.http.RelayResponse#readerPresent}), waiting for one is no stall.
	 */
	static StreamWatch of(Duration upstreamIdle, Duration clientWrite, dev.mcprelay.http.RelayResponse response) {
		return new StreamWatch(upstreamIdle, clientWrite, Schedulers.parallel(), response::readerPresent);
	}

	/** {@code body}, ended with the failure of whichever clock expires first. Subscribe once. */
	Flux<DataBuffer> watch(Flux<DataBuffer> body) {
		return body.doOnNext(chunk -> received())
			.doOnRequest(this::requested)
			.takeUntilOther(expired.asMono())
			.concatWith(Mono.defer(this::failureIfExpired))
			.doFinally(signal -> stop());
	}

	/**
	 * {@code written}, the buffers of a whole answer on their way to the client's connection, which completes only once
	 * the connection has written them all: ended with a {@link ClientStalledException} when the client takes nothing
	 * for {@code clientWrite}. Nothing is asked of an upstream, so only the client's clock runs, from the subscription
	 * until {@code written} ends, restarted whenever the client takes bytes ({@link #clientTook}). Subscribe once.
	 */
	<T> Flux<T> watchClient(Flux<T> written) {
		return Flux.defer(() -> {
			synchronized (this) {
				outstanding = 0;
				restart();
			}
			return written;
		}).takeUntilOther(expired.asMono()).concatWith(Mono.defer(this::failureIfExpiredAs)).doFinally(signal -> stop());
	}

	/**
	 * The client took bytes it was handed: while the relay waits for it (asks nothing of the upstream), its clock
	 * starts again. Before the body is watched, and once it ended, nothing is timed. Safe from any thread.
	 */
	synchronized void clientTook() {
		if (clock != null && outstanding == 0) {
			restart();
		}
	}

	private synchronized void requested(long count) {
		outstanding = count == Long.MAX_VALUE || outstanding + count < 0 ? Long.MAX_VALUE : outstanding + count;
		restart();
	}

	private synchronized void received() {
		if (outstanding != Long.MAX_VALUE) {
			outstanding--;
		}
		restart();
	}

	/** Starts the clock of whoever is awaited now: the upstream if the relay asked for more, else the client. */
	private void restart() {
		if (failure != null) {
			return;
		}
		if (clock != null) {
			clock.dispose();
		}
		boolean awaitingUpstream = outstanding > 0;
		Duration limit = awaitingUpstream ? upstreamIdle : clientWrite;
		clock = timer.schedule(() -> expire(awaitingUpstream), limit.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
	}

	private void expire(boolean upstreamSilent) {
		synchronized (this) {
			if (failure != null) {
				return;
			}
			if (!upstreamSilent && !readerPresent.getAsBoolean()) {
				// nobody reads yet (a held stream's reader still to come): no client stalled; its clock starts again
				restart();
				return;
			}
			failure = upstreamSilent ? new TimeoutException("the upstream sent nothing for " + upstreamIdle)
					: new ClientStalledException(clientWrite);
		}
		expired.tryEmitEmpty();
	}

	private Mono<DataBuffer> failureIfExpired() {
		return failureIfExpiredAs();
	}

	private synchronized <T> Mono<T> failureIfExpiredAs() {
		return failure == null ? Mono.empty() : Mono.error(failure);
	}

	private synchronized void stop() {
		if (clock != null) {
			clock.dispose();
		}
		if (failure == null) {
			failure = new IllegalStateException("stopped");
		}
	}

	/** The client took nothing of the stream for the client write timeout. */
	static final class ClientStalledException extends RuntimeException {

		ClientStalledException(Duration limit) {
			super("the client read nothing for " + limit, null, false, false);
		}

	}

}
