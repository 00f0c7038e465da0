package dev.mcprelay;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Where the relay subscribes work that may block (the first use of a Redis connection, reading an authorization
 * server's metadata with Spring's blocking client) so that no event loop waits: a few daemon threads whose tasks are
 * never interrupted. A task given up on (a timeout, a client gone) is left to finish: interrupting a thread while it
 * loads or initializes a class (the first Redis command initializes Spring Data's converters) would leave that class
 * unusable for the rest of the process, which Reactor's {@code boundedElastic} scheduler does when a subscription is
 * cancelled.
 */
public final class OffEventLoop {

	/** The threads: enough for a burst of first uses; each task only subscribes, the work itself is asynchronous. */
	private static final int THREADS = 8;

	private static final AtomicInteger COUNT = new AtomicInteger();

	/**
	 * The scheduler for work that may block: over the executor seen as a plain {@link java.util.concurrent.Executor},
	 * since Reactor makes any {@link java.util.concurrent.ExecutorService} a scheduler that cancels a given-up task
	 * with an interrupt (a Cluster's first connection, waiting for its topology, failed with "Command interrupted").
	 */
	public static final Scheduler SCHEDULER = Schedulers.fromExecutor(executor()::execute);

	private OffEventLoop() {
	}

	/**
	 * The pool, its threads started at once and kept: an event loop hands it work without taking a lock. A
	 * {@link LinkedBlockingQueue}'s offer takes the lock its idle workers wait on, and a pool that lets its threads time
	 * out takes its own lock to start one again: under a burst (the calls a Sentinel failover held, released together)
	 * an event loop parked on either, and Lettuce's, which a completed command subscribes the next from, stalled the
	 * store. {@link LinkedTransferQueue}'s offer is lock-free, and with every thread started {@code execute} only offers.
	 */
	private static ThreadPoolExecutor executor() {
		ThreadPoolExecutor executor = new ThreadPoolExecutor(THREADS, THREADS, 60, TimeUnit.SECONDS,
				new LinkedTransferQueue<>(), task -> {
					Thread thread = new Thread(task, "mcp-relay-blocking-" + COUNT.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
		executor.prestartAllCoreThreads();
		return executor;
	}

}
