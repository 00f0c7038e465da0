package dev.mcprelay.http;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

import io.netty.channel.Channel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;

/**
 * A value kept on a client connection until a deadline of its own ({@link System#nanoTime()}), then removed, even from
 * a connection that stays open and quiet: nothing is held past its time. One timer per connection and key, whatever
 * the number of values set on it (a connection that carries many callers' tokens in turn schedules one removal at a
 * time, rescheduled to the current value's deadline), cancelled when the connection closes, so neither a busy
 * connection nor many short ones hold timers or values for long. Timers run on the connection's event loop.
 *
 * @param <T> the value
 */
public final class ExpiringConnectionAttribute<T> {

	private final AttributeKey<T> key;

	private final AttributeKey<ScheduledFuture<?>> timer;

	private final AttributeKey<Boolean> watchingClose;

	private final ToLongFunction<T> deadline;

	private final LongSupplier clock;

	/**
	 * @param key the connection attribute that holds the value
	 * @param deadline a value's deadline, a {@link System#nanoTime()}
	 */
	public ExpiringConnectionAttribute(AttributeKey<T> key, ToLongFunction<T> deadline) {
		this(key, deadline, System::nanoTime);
	}

	/** @param clock the clock deadlines are read on, {@link System#nanoTime()} but in tests */
	ExpiringConnectionAttribute(AttributeKey<T> key, ToLongFunction<T> deadline, LongSupplier clock) {
		this.key = key;
		this.deadline = deadline;
		this.clock = clock;
		this.timer = AttributeKey.valueOf(key.name() + ".expiry");
		this.watchingClose = AttributeKey.valueOf(key.name() + ".closeWatched");
	}

	/** Sets the value on {@code connection}; it is removed at its deadline unless another took its place. */
	void keep(Channel connection, T value) {
		connection.attr(key).set(value);
		if (connection.attr(watchingClose).setIfAbsent(Boolean.TRUE) == null) {
			connection.closeFuture().addListener(closed -> {
				ScheduledFuture<?> pending = connection.attr(timer).getAndSet(null);
				if (pending != null) {
					pending.cancel(false);
				}
				connection.attr(key).set(null);
			});
		}
		if (connection.attr(timer).get() == null) {
			schedule(connection, Math.max(0, deadline.applyAsLong(value) - clock.getAsLong()));
		}
	}

	private void schedule(Channel connection, long delayNanos) {
		Attribute<ScheduledFuture<?>> pending = connection.attr(timer);
		ScheduledFuture<?> next = connection.eventLoop().schedule(() -> expire(connection), delayNanos,
				TimeUnit.NANOSECONDS);
		if (!pending.compareAndSet(null, next)) {
			next.cancel(false); // another schedule won: one timer per connection
		}
	}

	/** On the event loop: removes the value if its deadline passed, else waits for the deadline of the current one. */
	private void expire(Channel connection) {
		connection.attr(timer).set(null);
		Attribute<T> attribute = connection.attr(key);
		T current = attribute.get();
		if (current == null || !connection.isActive()) {
			return;
		}
		long left = deadline.applyAsLong(current) - clock.getAsLong();
		if (left > 0 || !attribute.compareAndSet(current, null)) {
			// Still within its time, or replaced meanwhile: the current value's own deadline decides.
			T now = attribute.get();
			if (now != null) {
				schedule(connection, Math.max(0, deadline.applyAsLong(now) - clock.getAsLong()));
			}
		}
	}

}
