package dev.mcprelay.metrics;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import ch.qos.logback.core.encoder.Encoder;

/**
 * Writes log events to the console off the thread that logs them, many lines to one write: the thread that logs (an
 * event loop, for the access log) only puts the event on a lock-free queue, taking no lock and waking no thread; one
 * writer thread wakes every {@value #INTERVAL_MILLIS} ms, encodes what is queued as the console's own encoder does (so
 * the lines look exactly as the console's others do, pattern or structured; {@link ConsoleLineEncoder} renders a
 * pattern's part before the message once per millisecond and thread) and writes it in chunks of whole lines of at
 * most {@value #MAX_WRITE} bytes, each one {@code write(2)}: a pipe takes that many bytes at once, so no line is torn
 * or interleaved with another writer's. (A console appender on the event loops has them take turns on one lock around
 * each line's write; a blocking queue wakes the writer for each line: either costs a system call or two per line.)
 *
 * <p>When the queue is full (the console cannot keep up) an event is dropped and counted, never waited for: the writer
 * reports the count after its next batch, as a warning of this class's own logger (which is not batched).
 * {@link #stop()} writes what is queued before it returns.
 */
final class BatchingConsoleAppender extends UnsynchronizedAppenderBase<ILoggingEvent> {

	private static final Logger log = LoggerFactory.getLogger(BatchingConsoleAppender.class);

	/** Bytes in one write at most: {@code PIPE_BUF} on Linux, what a pipe writes atomically. */
	static final int MAX_WRITE = 4096;

	/** How often the writer looks for lines to write: how late a line may be. */
	static final long INTERVAL_MILLIS = 20;

	private final ConsoleLineEncoder encoder;

	private final OutputStream console;

	private final ConcurrentLinkedQueue<ILoggingEvent> queue = new ConcurrentLinkedQueue<>();

	private final AtomicInteger queued = new AtomicInteger();

	private final int capacity;

	private final AtomicLong dropped = new AtomicLong();

	private volatile Thread writer;

	private volatile boolean stopping;

	/**
	 * @param encoder the console's encoder, used from the writer thread only
	 * @param console where the bytes go
	 * @param capacity events queued at most
	 */
	BatchingConsoleAppender(Encoder<ILoggingEvent> encoder, OutputStream console, int capacity) {
		this.encoder = ConsoleLineEncoder.of(encoder);
		this.console = console;
		this.capacity = capacity;
	}

	@Override
	public void start() {
		stopping = false;
		Thread thread = new Thread(this::writeUntilStopped, "mcp-relay-access-log");
		thread.setDaemon(true);
		writer = thread;
		super.start();
		thread.start();
	}

	/** Queues {@code event}, or counts it dropped when the queue is full; never blocks. */
	@Override
	protected void append(ILoggingEvent event) {
		// What the event reads from the logging thread (its thread's name, the MDC) is read now.
		event.prepareForDeferredProcessing();
		if (queued.incrementAndGet() > capacity) {
			queued.decrementAndGet();
			dropped.incrementAndGet();
			return;
		}
		queue.offer(event);
	}

	/** Events dropped because the queue was full, since start. */
	long dropped() {
		return dropped.get();
	}

	/** Stops taking events, writes those queued, then stops the writer (waiting a few seconds at most). */
	@Override
	public void stop() {
		if (!isStarted()) {
			return;
		}
		super.stop();
		stopping = true;
		Thread thread = writer;
		if (thread != null) {
			LockSupport.unpark(thread);
			try {
				thread.join(TimeUnit.SECONDS.toMillis(5));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void writeUntilStopped() {
		ByteArrayOutputStream chunk = new ByteArrayOutputStream(MAX_WRITE);
		long reported = 0;
		while (true) {
			boolean last = stopping;
			ILoggingEvent event;
			while ((event = queue.poll()) != null) {
				queued.decrementAndGet();
				try {
					writeLine(chunk, encoder.prepare(event));
				}
				catch (RuntimeException ex) {
					addError("Could not encode an access-log line", ex);
				}
			}
			flush(chunk);
			long lost = dropped.get();
			if (lost != reported) {
				log.warn("{} access-log lines dropped: the console did not keep up", lost - reported);
				reported = lost;
			}
			if (last) {
				return;
			}
			LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS));
		}
	}

	/**
	 * Adds the line the encoder prepared, {@code length} bytes, to the chunk, writing the chunk first when the line
	 * would not fit in it: a line of
	 * {@value #MAX_WRITE} bytes or more is thus written alone, never cut (the chunk keeps its size after it).
	 */
	private void writeLine(ByteArrayOutputStream chunk, int length) {
		if (chunk.size() > 0 && chunk.size() + length > MAX_WRITE) {
			flush(chunk);
		}
		encoder.writePrepared(chunk);
	}

	private void flush(ByteArrayOutputStream chunk) {
		if (chunk.size() > 0) {
			try {
				chunk.writeTo(console);
			}
			catch (IOException ex) {
				addError("Could not write access-log lines to the console", ex);
			}
			chunk.reset();
		}
	}

}
