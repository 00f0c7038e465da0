package dev.mcprelay.testsupport;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The relay as it ships: {@code java -jar relay/target/mcp-relay-*.jar} (the jar {@code ./mvnw verify} packaged, so in
 * {@code *IT} classes only) in a process of its own, on 127.0.0.1 at a free port, its output in
 * {@code target/<name>.log}. {@link #kill()} is SIGKILL (a crash, an OOM kill), {@link #stop()} SIGTERM (a drain, a
 * rolling update); {@link #close()} stops what still runs.
 */
public final class RelayJarProcess implements AutoCloseable {

	private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

	private final String name;

	private final Process process;

	private final int port;

	private final Path log;

	private RelayJarProcess(String name, Process process, int port, Path log) {
		this.name = name;
		this.process = process;
		this.port = port;
		this.log = log;
	}

	/** Starts the packaged jar named {@code name} (its log's name) with {@code arguments} on a free port. */
	public static RelayJarProcess start(String name, List<String> arguments) throws IOException {
		int port = TestUpstreams.freePort();
		Path log = Path.of("target", name + ".log").toAbsolutePath();
		List<String> command = new ArrayList<>(List.of(JAVA.toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar",
				packagedJar().toString(), "--server.port=" + port, "--server.address=127.0.0.1"));
		command.addAll(arguments);
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		return new RelayJarProcess(name, process, port, log);
	}

	/** The jar this build packaged ({@code relay/target/mcp-relay-<version>.jar}). */
	public static Path packagedJar() throws IOException {
		Path target = Path.of("target");
		try (Stream<Path> files = Files.list(target)) {
			List<Path> jars = files.filter(file -> file.getFileName().toString().matches("mcp-relay-[^-]+(-SNAPSHOT)?\\.jar"))
				.toList();
			if (jars.size() != 1) {
				throw new AssertionError("expected the one jar this build packaged in " + target.toAbsolutePath() + ", found "
						+ jars + ": run ./mvnw verify (the jar is packaged before the *IT classes run)");
			}
			return jars.get(0).toAbsolutePath();
		}
	}

	/** Waits until {@code /actuator/health/readiness} answers 200, as a load balancer's check would. */
	public RelayJarProcess awaitReady() throws IOException, InterruptedException {
		HttpClient client = HttpClient.newHttpClient();
		HttpRequest readiness = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health/readiness"))
			.timeout(Duration.ofSeconds(5))
			.build();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
		while (true) {
			if (!process.isAlive()) {
				throw new AssertionError("the relay " + name + " exited with " + process.exitValue() + "; see " + log);
			}
			try {
				if (client.send(readiness, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
					return this;
				}
			}
			catch (IOException notYet) {
				// not listening yet
			}
			if (System.nanoTime() > deadline) {
				throw new AssertionError("the relay " + name + " was not ready within 120s; see " + log);
			}
			Thread.sleep(200);
		}
	}

	public String name() {
		return name;
	}

	public int port() {
		return port;
	}

	/** What the relay wrote so far (its access log lines among it). */
	public String log() throws IOException {
		return Files.readString(log);
	}

	public boolean isAlive() {
		return process.isAlive();
	}

	/** SIGKILL: the relay ends at once, its connections reset, nothing drained. */
	public void kill() throws InterruptedException {
		process.destroyForcibly();
		process.waitFor(30, TimeUnit.SECONDS);
	}

	/** SIGTERM: the relay drains (its shutdown grace) and exits; returns once it has. */
	public void stop() throws InterruptedException {
		process.destroy();
		if (!process.waitFor(60, TimeUnit.SECONDS)) {
			throw new AssertionError("the relay " + name + " did not exit within 60s of SIGTERM; see " + log);
		}
	}

	@Override
	public void close() throws InterruptedException {
		if (process.isAlive()) {
			process.destroy();
			if (!process.waitFor(30, TimeUnit.SECONDS)) {
				process.destroyForcibly();
			}
		}
	}

}
