package dev.mcprelay.interop;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

import com.sun.management.HotSpotDiagnosticMXBean;

/**
 * Counts what this JVM's live heap holds of a text: a heap dump of the live objects only (a full collection first),
 * scanned for runs of one letter. A text of one letter, as a string's or a request's bytes hold it (one byte a letter),
 * is one run in the dump; a run as long as the text or longer is one copy of it. For tests that show a relay in this
 * JVM keeps no more copies of a marked request than it counts.
 */
final class LiveHeapRuns {

	private LiveHeapRuns() {
	}

	/** How many runs of at least {@code length} {@code letter}s (an ASCII letter) the live heap holds now. */
	static long of(char letter, int length) throws IOException {
		Path directory = Files.createTempDirectory("live-heap-runs");
		Path dump = directory.resolve("live.hprof");
		try {
			ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(dump.toString(), true);
			return runs(dump, (byte) letter, length);
		}
		finally {
			Files.deleteIfExists(dump);
			Files.deleteIfExists(directory);
		}
	}

	private static long runs(Path dump, byte letter, int length) throws IOException {
		long runs = 0;
		long run = 0;
		try (InputStream in = new BufferedInputStream(Files.newInputStream(dump), 1 << 20)) {
			byte[] chunk = new byte[1 << 20];
			for (int read = in.read(chunk); read > 0; read = in.read(chunk)) {
				for (int i = 0; i < read; i++) {
					if (chunk[i] == letter) {
						run++;
					}
					else {
						runs += run >= length ? 1 : 0;
						run = 0;
					}
				}
			}
		}
		return runs + (run >= length ? 1 : 0);
	}

}
