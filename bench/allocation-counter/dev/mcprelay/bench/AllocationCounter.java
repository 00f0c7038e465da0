package dev.mcprelay.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * How many bytes a JVM's threads have allocated in the heap, read from outside by the bench: a Java agent
 * ({@code -javaagent:allocation-counter.jar=<port>}) whose one daemon thread answers each connection to
 * {@code 127.0.0.1:<port>} with one line, {@code <bytes> <unseen> <how>}, and closes it. {@code bytes} only grows;
 * the bench reads it before and after a round and divides the difference by the round's requests.
 *
 * <p>Where the JVM counts every thread's allocations itself, ended threads included
 * ({@code com.sun.management.ThreadMXBean#getTotalThreadAllocatedBytes}: Java 21, and the Java 17 updates that carry
 * its backport, as the bench machine's 17.0.15 does), {@code bytes} is that count ({@code how} is {@code jvm-total})
 * and {@code unseen} stays 0. On a JVM without it ({@code how} is {@code per-thread}) {@code bytes} is the sum, over the readings, of what each live thread allocated since the reading
 * before (the JVM's per-thread counters, exact to the byte, the current TLAB's share included); a thread that ended
 * between two readings took with it what it allocated after the first, so {@code unseen} counts those threads (the
 * threads seen before and gone, and those started since and gone already, by the JVM's count of started threads): a
 * difference of {@code bytes} over which {@code unseen} did not move is exact.
 *
 * <p>A reading allocates a little in the target itself (the connection and the line: 832 bytes on the bench machine;
 * the per-thread reading adds the thread ids and counters), which lands in the difference of two readings; the bench measures it by reading twice with no load. The thread takes no
 * CPU between readings (it waits in {@code accept}). If the port cannot be bound, the agent says so on standard error
 * and the target runs without it (the bench then fails on its first reading, naming the target).
 */
public final class AllocationCounter implements Runnable {

	private final int port;

	private final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory
		.getThreadMXBean();

	/** {@code getTotalThreadAllocatedBytes}, where the JVM has it; else {@code null}. */
	private final Method total = totalMethod();

	/** The ids of the threads alive at the last reading, ascending, and what each had allocated then. */
	private long[] seenIds = new long[0];

	private long[] seenBytes = new long[0];

	private int seenCount;

	/** The JVM's count of threads started, at the last reading. */
	private long seenStarted;

	private long bytes;

	private long unseen;

	private AllocationCounter(int port) {
		this.port = port;
	}

	/** Starts the counter's thread on the port the agent argument names. */
	public static void premain(String port) {
		Thread thread = new Thread(new AllocationCounter(Integer.parseInt(port.trim())), "bench-allocation-counter");
		thread.setDaemon(true);
		thread.start();
	}

	@Override
	public void run() {
		try (ServerSocket server = new ServerSocket(port, 4, InetAddress.getLoopbackAddress())) {
			while (true) {
				try (Socket reader = server.accept()) {
					String line = reading();
					OutputStream out = reader.getOutputStream();
					out.write(line.getBytes(StandardCharsets.US_ASCII));
					out.flush();
				}
				catch (IOException ex) {
					// a reader that went away before its line: the next one gets the next reading
				}
			}
		}
		catch (IOException ex) {
			System.err.println("allocation counter: cannot listen on 127.0.0.1:" + port + ": " + ex);
		}
	}

	private String reading() {
		if (total != null) {
			try {
				return (Long) total.invoke(threads) + " 0 jvm-total\n";
			}
			catch (ReflectiveOperationException ex) {
				throw new IllegalStateException(ex);
			}
		}
		readThreads();
		return bytes + " " + unseen + " per-thread\n";
	}

	/** Adds to {@code bytes} what every live thread allocated since the last reading, and counts ended threads. */
	private void readThreads() {
		long started;
		long[] ids;
		long[] allocated;
		do {
			started = threads.getTotalStartedThreadCount();
			ids = threads.getAllThreadIds();
			allocated = threads.getThreadAllocatedBytes(ids);
		}
		while (started != threads.getTotalStartedThreadCount());
		// keep the live threads (a thread that ended between the two calls reads -1), ascending by id
		int alive = 0;
		for (int i = 0; i < ids.length; i++) {
			if (allocated[i] >= 0) {
				ids[alive] = ids[i];
				allocated[alive] = allocated[i];
				alive++;
			}
		}
		sort(ids, allocated, alive);
		int carried = 0;
		for (int i = 0; i < alive; i++) {
			int at = Arrays.binarySearch(seenIds, 0, seenCount, ids[i]);
			if (at >= 0) {
				carried++;
				bytes += allocated[i] - seenBytes[at];
			}
			else {
				bytes += allocated[i];
			}
		}
		long born = started - seenStarted;
		unseen += (seenCount - carried) + (born - (alive - carried));
		seenIds = ids;
		seenBytes = allocated;
		seenCount = alive;
		seenStarted = started;
	}

	/** Sorts the first {@code count} ids ascending, their counters with them (a few dozen threads: insertion sort). */
	private static void sort(long[] ids, long[] values, int count) {
		for (int i = 1; i < count; i++) {
			long id = ids[i];
			long value = values[i];
			int j = i - 1;
			while (j >= 0 && ids[j] > id) {
				ids[j + 1] = ids[j];
				values[j + 1] = values[j];
				j--;
			}
			ids[j + 1] = id;
			values[j + 1] = value;
		}
	}

	private static Method totalMethod() {
		try {
			return com.sun.management.ThreadMXBean.class.getMethod("getTotalThreadAllocatedBytes");
		}
		catch (NoSuchMethodException ex) {
			return null;
		}
	}

}
