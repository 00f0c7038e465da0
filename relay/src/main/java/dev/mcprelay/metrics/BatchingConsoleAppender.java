package dev.mcprelay.metrics;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import ch.qos.logback.core.encoder.Encoder;

/**
 * Writes log events to the console off the thread that logs them, many lines to one write: the thread that logs (an
 * event loop, for the access log) only queues the event; one writer thread encodes what is queued with the console's
 * own encoder (so the lines look exactly as the console's others do, pattern or structured) and writes it in chunks of
 * whole lines of at most {@value #MAX_WRITE} bytes, each one {@code write(2)}: a pipe takes that many bytes at once, so
 * no line is torn or interleaved with another writer's.
 *
 * <p>When the queue is full (the console cannot keep up) an event is dropped and counted, never waited for: the writer
 * reports the count at its next batch, as a warning of this class's own logger (which is not batched). {@link #stop()} writes what is queued before it returns.
 */
final class BatchingConsoleAppender extends UnsynchronizedAppenderBase<ILoggingEvent> {

	private static final Logger log = LoggerFactory.getLogger(BatchingConsoleAppender.class);

	/** Bytes in one write at most: {@code PIPE_BUF} on Linux, what a pipe writes atomically. */
	static final int MAX_WRITE = 4096;

	private final Encoder<ILoggingEvent> encoder;

	private final OutputStream console;

	private final BlockingQueue<ILoggingEvent> queue;

	private final AtomicLong dropped = new AtomicLong();

	private volatile Thread writer;

	private volatile boolean stopping;

	/**
	 * @param encoder the console's encoder, used from the writer thread only
	 * @param console where the bytes go
	 * @param capacity events queued at most
	 */
	BatchingConsoleAppender(Encoder<ILoggingEvent> encoder, OutputStream console, int capacity) {
		this.encoder = encoder;
		this.console = console;
		this.queue = new ArrayBlockingQueue<>(capacity);
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
		if (!queue.offer(event)) {
			dropped.incrementAndGet();
		}
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
			thread.interrupt();
			try {
				thread.join(TimeUnit.SECONDS.toMillis(5));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void writeUntilStopped() {
		List<ILoggingEvent> batch = new ArrayList<>();
		ByteArrayOutputStream chunk = new ByteArrayOutputStream(MAX_WRITE);
		long reported = 0;
		while (true) {
			try {
				ILoggingEvent first = stopping ? queue.poll() : queue.take();
				if (first == null) {
					return;
				}
				batch.add(first);
			}
			catch (InterruptedException ex) {
				if (!stopping) {
					return;
				}
				continue;
			}
			queue.drainTo(batch, 1023);
			long lost = dropped.get();
			if (lost != reported) {
				log.warn("{} access-log lines dropped: the console did not keep up", lost - reported);
				reported = lost;
			}
			for (ILoggingEvent event : batch) {
				try {
					writeLine(chunk, encoder.encode(event));
				}
				catch (RuntimeException ex) {
					addError("Could not encode an access-log line", ex);
				}
			}
			batch.clear();
			flush(chunk);
		}
	}

	/** Adds one line to the chunk, writing the chunk first when the line would not fit in it. */
	private void writeLine(ByteArrayOutputStream chunk, byte[] line) {
		if (chunk.size() > 0 && chunk.size() + line.length > MAX_WRITE) {
			flush(chunk);
		}
		if (line.length >= MAX_WRITE) {
			write(line, line.length);
			return;
		}
		chunk.write(line, 0, line.length);
	}

	private void flush(ByteArrayOutputStream chunk) {
		if (chunk.size() > 0) {
			write(chunk.toByteArray(), chunk.size());
			chunk.reset();
		}
	}

	private void write(byte[] bytes, int length) {
		try {
			console.write(bytes, 0, length);
		}
		catch (IOException ex) {
			addError("Could not write access-log lines to the console", ex);
		}
	}

}
