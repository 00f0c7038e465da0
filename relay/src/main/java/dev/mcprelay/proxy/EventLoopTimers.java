package dev.mcprelay.proxy;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Where a per-request timer runs: on the Netty event loop of the thread that asks, so that arming and cancelling it
 * take no lock and wake no other thread (Netty keeps an event loop's timers in a queue of its own), and a timer that
 * fires runs where the request runs; on Reactor's parallel scheduler when the thread that asks is no event loop.
 */
final class EventLoopTimers {

	/** One scheduler per event loop, made once: there are as many as the server and client have event loops. */
	private static final Map<EventExecutor, Scheduler> SCHEDULERS = new ConcurrentHashMap<>();

	private EventLoopTimers() {
	}

	/** The scheduler of the calling thread's event loop, or Reactor's parallel scheduler. */
	static Scheduler current() {
		// Netty's own record of which event loop runs the current thread (public, in its internal package).
		EventExecutor loop = ThreadExecutorMap.currentExecutor();
		if (loop == null) {
			return Schedulers.parallel();
		}
		return SCHEDULERS.computeIfAbsent(loop, Schedulers::fromExecutorService);
	}

}
