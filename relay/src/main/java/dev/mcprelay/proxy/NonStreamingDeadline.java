package dev.mcprelay.proxy;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import org.reactivestreams.Subscription;

import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * The {@code timeouts.non-streaming} bound of one exchange: it covers connect, the response headers and, for a JSON
 * response, reading its body. Once the relay starts streaming a body to the client it is {@link #release()}d and
 * the per-event idle bound takes over. Until then, the relay's shutdown cuts the exchange too ({@link OpenStreams}):
 * an answer that has not begun streaming when the grace period ends will not come.
 */
final class NonStreamingDeadline {

	private volatile boolean released;

	/** The exchange's watch, once it is subscribed. */
	private volatile Watch watch;

	/**
	 * Stops the deadline; from now on the exchange is bounded by the streaming idle timeout only, and the wait for
	 * {@code shutdown} ({@link #bound}) is cancelled: what streams is ended by {@link OpenStreams#untilShutdown}.
	 */
	void release() {
		released = true;
		Watch subscribed = watch;
		if (subscribed != null) {
			subscribed.shutdownWatch.stop();
		}
	}

	/**
	 * {@code exchange} bounded by {@code limit} and by {@code shutdown}: when the limit passes before it ends and the
	 * deadline was not released, the exchange is cancelled and the result fails with a {@link TimeoutException}; when
	 * {@code shutdown} completes first, with a {@link RelayShuttingDownException}, and when it fails first with one (a
	 * reload that ended the exchange, {@link OpenStreams#endingBeforeItsAnswer}), with that one; both unless the
	 * deadline was released. Whichever comes first decides; another error of {@code shutdown}'s own is the result's.
	 * {@code shutdown} is subscribed before {@code exchange}, in the result's context, and an exchange whose shutdown
	 * has already come is never subscribed. The timer is armed on the
	 * event loop that subscribes ({@link EventLoopTimers}) and cancelled when the exchange ends first.
	 *
	 * <p>One operator, not a chain of Reactor's: Reactor's {@code timeout} names the source it bounds on every
	 * subscription, by a regular expression over class names, and a chain of {@code delay}, {@code takeUntilOther} and
	 * {@code then} builds some ten publishers and subscribers per exchange; this bound builds two subscribers and a
	 * timer.
	 *
	 * @param shutdown completes when the relay's shutdown ends exchanges of this kind ({@link OpenStreams#closing})
	 */
	Mono<Void> bound(Mono<Void> exchange, Duration limit, Mono<Void> shutdown) {
		return new Bounded(exchange, limit, shutdown, this);
	}

	/** The exchange under its deadline. */
	private static final class Bounded extends Mono<Void> {

		private final Mono<Void> exchange;

		private final Duration limit;

		private final Mono<Void> shutdown;

		private final NonStreamingDeadline deadline;

		Bounded(Mono<Void> exchange, Duration limit, Mono<Void> shutdown, NonStreamingDeadline deadline) {
			this.exchange = exchange;
			this.limit = limit;
			this.shutdown = shutdown;
			this.deadline = deadline;
		}

		@Override
		public void subscribe(CoreSubscriber<? super Void> actual) {
			Watch watch = new Watch(actual, limit, deadline);
			deadline.watch = watch;
			actual.onSubscribe(watch);
			try {
				watch.timer = EventLoopTimers.schedule(watch, limit);
			}
			catch (RejectedExecutionException ex) {
				// the event loop is shutting down: no timer, no exchange
				watch.fail(ex);
				return;
			}
			if (watch.isEnded()) {
				watch.timer.dispose();
				return;
			}
			shutdown.subscribe(watch.shutdownWatch);
			if (!watch.isEnded()) {
				exchange.subscribe(watch);
			}
		}

	}

	/**
	 * The subscriber of the exchange, the downstream's subscription, and the timer's task: the first of the exchange's
	 * end, the timer, shutdown and the downstream's cancel ends it, once.
	 */
	private static final class Watch extends Operators.DeferredSubscription implements CoreSubscriber<Void>, Runnable {

		private static final AtomicIntegerFieldUpdater<Watch> ENDED = AtomicIntegerFieldUpdater.newUpdater(Watch.class,
				"ended");

		private final CoreSubscriber<? super Void> actual;

		private final Duration limit;

		private final NonStreamingDeadline deadline;

		final ShutdownWatch shutdownWatch = new ShutdownWatch(this);

		volatile Disposable timer;

		private volatile int ended;

		Watch(CoreSubscriber<? super Void> actual, Duration limit, NonStreamingDeadline deadline) {
			this.actual = actual;
			this.limit = limit;
			this.deadline = deadline;
		}

		boolean isEnded() {
			return ended != 0;
		}

		/** Whether this call ends the watch: the first does, and stops the timer and the wait for shutdown. */
		private boolean end() {
			if (!ENDED.compareAndSet(this, 0, 1)) {
				return false;
			}
			Disposable armed = timer;
			if (armed != null) {
				armed.dispose();
			}
			shutdownWatch.stop();
			return true;
		}

		@Override
		public Context currentContext() {
			return actual.currentContext();
		}

		@Override
		public void onSubscribe(Subscription s) {
			set(s);
		}

		@Override
		public void onNext(Void value) {
			// a Mono<Void> has no value
		}

		@Override
		public void onError(Throwable error) {
			if (end()) {
				actual.onError(error);
			}
			else {
				Operators.onErrorDropped(error, actual.currentContext());
			}
		}

		@Override
		public void onComplete() {
			if (end()) {
				actual.onComplete();
			}
		}

		@Override
		public void cancel() {
			if (end()) {
				super.cancel();
			}
		}

		/** The limit passed: the exchange ends with a {@link TimeoutException}, unless the deadline was released. */
		@Override
		public void run() {
			if (!deadline.released && end()) {
				super.cancel();
				actual.onError(new TimeoutException("no answer within " + limit));
			}
		}

		/** Shutdown, or a reload, came: the exchange ends with {@code cut}, unless the deadline was released. */
		void shutDown(RelayShuttingDownException cut) {
			if (!deadline.released && end()) {
				super.cancel();
				actual.onError(cut);
			}
		}

		/** The timer could not be armed, or the wait for shutdown failed: the exchange ends with that failure. */
		void fail(Throwable error) {
			if (end()) {
				super.cancel();
				actual.onError(error);
			}
			else {
				Operators.onErrorDropped(error, actual.currentContext());
			}
		}

	}

	/** The subscriber of the shutdown signal, in the exchange's context. */
	private static final class ShutdownWatch extends Operators.DeferredSubscription implements CoreSubscriber<Void> {

		private final Watch watch;

		ShutdownWatch(Watch watch) {
			this.watch = watch;
		}

		@Override
		public Context currentContext() {
			return watch.currentContext();
		}

		@Override
		public void onSubscribe(Subscription s) {
			if (set(s)) {
				s.request(Long.MAX_VALUE);
			}
		}

		@Override
		public void onNext(Void value) {
			// a Mono<Void> has no value
		}

		@Override
		public void onError(Throwable error) {
			if (error instanceof RelayShuttingDownException cut) {
				watch.shutDown(cut);
			}
			else {
				watch.fail(error);
			}
		}

		@Override
		public void onComplete() {
			watch.shutDown(new RelayShuttingDownException());
		}

		void stop() {
			super.cancel();
		}

	}

}
