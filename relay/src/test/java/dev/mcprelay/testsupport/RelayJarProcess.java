package dev.mcprelay.testsupport;

import java.io.IOException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The relay as it ships: {@code java -jar relay/target/mcp-relay-*.jar} (the jar {@code ./mvnw verify} packaged, so in
 * {@code *IT} classes only) in a process of its own, on 127.0.0.1 at a free port, its output in
 * {@code target/<name>.log}. {@link #kill()} is SIGKILL (a crash, an OOM kill), {@link #stop()} SIGTERM (a drain, a
 * rolling update); {@link #close()} stops what still runs.
 * <p>
 * Each relay has a heap of {@value #HEAP} (several run at once on a small machine), and each server it is given buffers
 * bodies of at most {@value #MAX_BUFFERED_BODY} unless the test sets its own {@code max-buffered-body}: the default cap
 * (50MB, counted twice while read) does not fit a quarter of that heap, and the relay refuses to start with it.
 */
public final class RelayJarProcess implements AutoCloseable {

	private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

	private static final String HEAP = "256m";

	/** A server's cap on a buffered body: the tests' bodies are a few KB, and twice it fits a quarter of the heap. */
	private static final String MAX_BUFFERED_BODY = "4MB";

	private static final Pattern SERVER_URL = Pattern.compile("--mcp-relay\\.servers\\.([^.=]+)\\.url=.*");

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
		List<String> command = new ArrayList<>(List.of(JAVA.toString(), "-Xmx" + HEAP, "-XX:TieredStopAtLevel=1", "-jar",
				packagedJar().toString(), "--server.port=" + port, "--server.address=127.0.0.1"));
		command.addAll(arguments);
		command.addAll(bufferedBodyCaps(arguments));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		return new RelayJarProcess(name, process, port, log);
	}

	/** {@value #MAX_BUFFERED_BODY} for each server {@code arguments} gives a URL and no {@code max-buffered-body}. */
	static List<String> bufferedBodyCaps(List<String> arguments) {
		return arguments.stream()
			.map(SERVER_URL::matcher)
			.filter(Matcher::matches)
			.map(server -> server.group(1))
			.filter(id -> arguments.stream().noneMatch(argument -> argument.startsWith("--mcp-relay.servers." + id
					+ ".max-buffered-body=")))
			.map(id -> "--mcp-relay.servers." + id + ".max-buffered-body=" + MAX_BUFFERED_BODY)
			.toList();
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

	/**
	 * Waits until {@code /actuator/health/readiness} answers 200, as a load balancer's check would; each check on a
	 * connection of its own, closed after it (an idle pooled connection would look like a stream the relay holds, see
	 * {@link #establishedConnections()}).
	 */
	public RelayJarProcess awaitReady() throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
		while (true) {
			if (!process.isAlive()) {
				throw new AssertionError("the relay " + name + " exited with " + process.exitValue() + "; see " + log);
			}
			if (ready()) {
				return this;
			}
			if (System.nanoTime() > deadline) {
				throw new AssertionError("the relay " + name + " was not ready within 120s; see " + log);
			}
			Thread.sleep(200);
		}
	}

	private boolean ready() {
		try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
			socket.setSoTimeout(5000);
			socket.getOutputStream().write(("GET /actuator/health/readiness HTTP/1.1\r\nHost: 127.0.0.1:" + port
					+ "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
			String status = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
				.readLine();
			return status != null && status.startsWith("HTTP/1.1 200");
		}
		catch (IOException notYet) {
			return false;
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

	/**
	 * The TCP connections to the relay's port that are established now, as the kernel lists them
	 * ({@code /proc/net/tcp} and {@code tcp6}); behind a load balancer that opens a connection per request, a long-lived
	 * one is a stream the relay holds.
	 */
	public long establishedConnections() throws IOException {
		String local = String.format(":%04X", port);
		long count = 0;
		for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
			Path file = Path.of(table);
			if (Files.exists(file)) {
				count += Files.readAllLines(file).stream()
					.skip(1)
					.map(line -> line.trim().split("\\s+"))
					.filter(fields -> fields[1].endsWith(local) && "01".equals(fields[3]))
					.count();
			}
		}
		return count;
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
