package dev.mcprelay.interop;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.mcprelay.testsupport.RawHttp;

/**
 * A command an interop peer runs to its end (an install, a client of an SDK): its exit status and everything it printed.
 * One that outlives its timeout is killed with its children and fails the test with what it printed on stderr.
 */
record PeerCommand(int exitCode, String stdout, String stderr) {

	/** Runs {@code command} in {@code directory}, with {@code environment} added to this JVM's. */
	static PeerCommand run(Path directory, List<String> command, Map<String, String> environment, Duration timeout)
			throws IOException {
		ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(command)).directory(directory.toFile());
		builder.environment().putAll(environment);
		Process process = builder.start();
		CompletableFuture<String> stdout = CompletableFuture.supplyAsync(() -> RawHttp.readAll(process.getInputStream()));
		CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> RawHttp.readAll(process.getErrorStream()));
		try {
			if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
				process.descendants().forEach(ProcessHandle::destroyForcibly);
				process.destroyForcibly();
				throw new AssertionError(String.join(" ", command) + " did not finish within " + timeout + "\n"
						+ stderr.getNow(""));
			}
			return new PeerCommand(process.exitValue(), stdout.join(), stderr.join());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			process.destroyForcibly();
			throw new IOException("interrupted", ex);
		}
	}

}
