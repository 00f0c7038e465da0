package dev.mcprelay.session;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.stereotype.Component;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Every attempt of the relay's own to open a connection to the shared store (the store's channels, the rate-limit
 * buckets' connection, the readiness checks that open the session store's), so that none is under way when Spring
 * Data Redis shuts its Lettuce client down.
 *
 * <p>Why: Spring Data Redis's {@link LettuceConnectionFactory} stops (a {@link SmartLifecycle} of phase 0) before the
 * relay's beans are destroyed, and shuts its client down with a quiet period of 0, which ends Lettuce's event loops as
 * soon as they run out of work. A connection started then (a channel's first subscription that was slow to start, a
 * resubscription after the factory closed the last one) registers its channel on a loop that is ending: registered
 * after the loop closed its channels for the last time, the channel is never closed on it, its
 * {@code channelUnregistered} never runs, and Lettuce's {@code CommandHandler} never releases the read buffer it
 * allocated when the channel registered (a Netty buffer leak, seen in KubernetesManifestsTest).
 *
 * <p>So this stops just before the factory (its phase plus one): from then on {@link #open} refuses a new attempt
 * ({@link Refused}, which no caller retries), and the stop completes once every attempt already under way has settled
 * (connected, or failed with its channel closed while the event loops still run), within Spring's
 * {@code spring.lifecycle.timeout-per-shutdown-phase}. An attempt settles within Lettuce's connect and command
 * timeouts.
 *
 * <p>On a Redis Cluster, Lettuce opens connections of its own to refresh the cluster's topology (periodically, and
 * when a node moves slots or fails): the stop suspends those refreshes and completes only once none is in progress
 * (looked at every {@link #REFRESH_POLL}, for at most {@link #REFRESH_BOUND}), for the same reason (seen in
 * HungMasterOverRedisClusterTest: the same leak, from a refresh's connection).
 */
@Component
public class StoreConnectionAttempts implements SmartLifecycle {

	private final ObjectProvider<LettuceConnectionFactory> connections;

	/** Attempts under way; guarded by {@code this}. */
	private int underWay;

	/** Set once the relay stops: no attempt is started any more. Guarded by {@code this}. */
	private boolean stopping;

	private boolean running;

	/** What completes the stop, once the last attempt under way settles; guarded by {@code this}. */
	private Runnable stopped;

	StoreConnectionAttempts(ObjectProvider<LettuceConnectionFactory> connections) {
		this.connections = connections;
	}

	/**
	 * {@code attempt} (what opens a connection, and whatever it does with it before it is usable), started when
	 * subscribed to and run to its end even when its subscriber cancels: a value that arrives after that is handed to
	 * {@code discard}, which closes it. Fails with {@link Refused}, starting nothing, once the relay stops.
	 */
	public <T> Mono<T> open(Mono<T> attempt, Consumer<T> discard) {
		return Mono.defer(() -> {
			if (!enter()) {
				return Mono.error(new Refused());
			}
			CompletableFuture<T> settled = attempt.toFuture();
			settled.whenComplete((value, failure) -> leave());
			AtomicBoolean handedOver = new AtomicBoolean();
			return Mono.fromFuture(settled, true)
				.doOnNext(value -> handedOver.set(true))
				.doOnCancel(() -> settled.thenAccept(value -> {
					if (value != null && !handedOver.get()) {
						discard.accept(value);
					}
				}));
		});
	}

	/** How many attempts are under way. */
	synchronized int underWay() {
		return underWay;
	}

	private synchronized boolean enter() {
		if (stopping) {
			return false;
		}
		underWay++;
		return true;
	}

	private void leave() {
		Runnable done;
		synchronized (this) {
			underWay--;
			done = underWay == 0 ? stopped : null;
			if (done != null) {
				stopped = null;
			}
		}
		if (done != null) {
			done.run();
		}
	}

	@Override
	public synchronized void start() {
		running = true;
	}

	/** Refuses new attempts, without waiting for those under way (Spring stops a smart lifecycle with a callback). */
	@Override
	public void stop() {
		stop(() -> {
		});
	}

	/** How often a stop looks whether the Cluster's topology refresh in progress ended. */
	static final Duration REFRESH_POLL = Duration.ofMillis(20);

	/** The longest a stop waits for a topology refresh in progress: a refresh is bounded by Lettuce's timeouts. */
	static final Duration REFRESH_BOUND = Duration.ofSeconds(20);

	/**
	 * Refuses new attempts and suspends a Cluster's topology refreshes, and calls {@code callback} once no attempt and
	 * no refresh is under way (without blocking: a refresh is waited for on a timer).
	 */
	@Override
	public void stop(Runnable callback) {
		suspendTopologyRefresh();
		stopAttempts(() -> afterTopologyRefresh(callback));
	}

	private void stopAttempts(Runnable callback) {
		boolean idle;
		synchronized (this) {
			running = false;
			stopping = true;
			idle = underWay == 0;
			if (!idle) {
				stopped = callback;
			}
		}
		if (idle) {
			callback.run();
		}
	}

	private void suspendTopologyRefresh() {
		if (cluster() instanceof RedisClusterClient client) {
			client.suspendTopologyRefresh();
		}
	}

	private void afterTopologyRefresh(Runnable callback) {
		if (!(cluster() instanceof RedisClusterClient client) || !client.isTopologyRefreshInProgress()) {
			callback.run();
			return;
		}
		Flux.interval(REFRESH_POLL, REFRESH_POLL)
			.filter(tick -> !client.isTopologyRefreshInProgress())
			.next()
			.timeout(REFRESH_BOUND, Mono.empty())
			.subscribe(null, failure -> callback.run(), callback::run);
	}

	private AbstractRedisClient cluster() {
		LettuceConnectionFactory factory = connections.getIfAvailable();
		return factory == null ? null : factory.getNativeClient();
	}

	@Override
	public synchronized boolean isRunning() {
		return running;
	}

	/** Just before Spring Data Redis's connection factory, which stops its client. */
	@Override
	public int getPhase() {
		LettuceConnectionFactory factory = connections.getIfAvailable();
		int phase = factory == null ? 0 : factory.getPhase();
		return phase == Integer.MAX_VALUE ? phase : phase + 1;
	}

	/** An attempt not started because the relay is stopping. */
	public static final class Refused extends IllegalStateException {

		Refused() {
			super("the relay is stopping: no new connection to the shared store is opened");
		}

	}

}
