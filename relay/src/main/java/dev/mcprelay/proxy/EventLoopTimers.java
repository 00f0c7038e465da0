package dev.mcprelay.proxy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.ThreadExecutorMap;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;

/**
 * Where a per-request timer runs: on the Netty event loop of the thread that asks, so that arming and cancelling it
 * take no lock and wake no other thread (Netty keeps an event loop's timers in a queue of its own), and a timer that
 * fires runs where the request runs; on Reactor's parallel scheduler when the thread that asks is no event loop.
 */
final class EventLoopTimers {

	private EventLoopTimers() {
	}

	/**
	 * Runs {@code task} once after {@code delay}, on the calling thread's event loop (a task of the loop's own timer
	 * queue, with no Reactor scheduler around it), else on Reactor's parallel scheduler; disposing the result
	 * cancels it.
	 */
	static Disposable schedule(Runnable task, Duration delay) {
		EventExecutor loop = ThreadExecutorMap.currentExecutor();
		if (loop == null) {
			return Schedulers.parallel().schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
		}
		ScheduledFuture<?> timer = loop.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
		return () -> timer.cancel(false);
	}

}
