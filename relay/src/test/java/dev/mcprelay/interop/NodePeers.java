package dev.mcprelay.interop;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.mcprelay.testsupport.InstallLock;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RepositoryRoot;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * The real MCP peers from npm that the interop suite runs, from {@code interop/}: Node is checked, the packages
 * are installed from the lockfile ({@code npm ci}) when they are missing or older than it, the reference server runs
 * on 127.0.0.1, and the TypeScript SDK client runs the scenarios. Every failure says what to do.
 */
public final class NodePeers {

	static final Path DIRECTORY = RepositoryRoot.resolve("interop");

	private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(5);

	private static final Duration SCENARIOS_TIMEOUT = Duration.ofSeconds(120);

	private NodePeers() {
	}

	/** Fails unless Node 18 or newer is on the PATH. */
	public static void requireNode() {
		PeerCommand version;
		try {
			version = run(List.of("node", "--version"), Duration.ofSeconds(30));
		}
		catch (IOException ex) {
			throw new AssertionError("The interop suite needs Node.js 18 or newer on the PATH, and 'node' was not "
					+ "found. Install Node.js (https://nodejs.org, or your system's nodejs package) and run the tests "
					+ "again.", ex);
		}
		String text = version.stdout().strip();
		int major = text.startsWith("v") ? Integer.parseInt(text.substring(1, text.indexOf('.'))) : 0;
		if (version.exitCode() != 0 || major < 18) {
			throw new AssertionError("The interop suite needs Node.js 18 or newer; 'node --version' says '" + text
					+ "'. Install a newer Node.js and run the tests again.");
		}
	}

	/** Installs the pinned packages from {@code interop/package-lock.json} unless they are already in place. */
	public static void installFromLockfile() throws IOException {
		try (InstallLock lock = InstallLock.acquire("npm-interop")) {
			installFromLockfileHeld();
		}
	}

	private static void installFromLockfileHeld() throws IOException {
		Path lockfile = DIRECTORY.resolve("package-lock.json");
		Path installed = DIRECTORY.resolve("node_modules/.package-lock.json");
		if (Files.exists(installed)
				&& Files.getLastModifiedTime(installed).compareTo(Files.getLastModifiedTime(lockfile)) >= 0) {
			return;
		}
		PeerCommand install = run(List.of("npm", "ci", "--no-audit", "--no-fund"), INSTALL_TIMEOUT);
		if (install.exitCode() != 0) {
			throw new AssertionError("'npm ci' in interop/ failed (exit " + install.exitCode() + "); is the npm "
					+ "registry reachable?\n" + install.stderr());
		}
	}

	/** Starts the reference server on 127.0.0.1 and waits until it accepts connections. */
	static NodeServer startReferenceServer() throws IOException, InterruptedException {
		return startServer("everything-on-loopback.mjs");
	}

	/**
	 * Starts the MCP server {@code script} (a file in {@code interop/} that listens on 127.0.0.1 at the port in
	 * {@code PORT}) and waits until it accepts connections. Its output goes to {@code target/interop-<script>.log}.
	 */
	public static NodeServer startServer(String script) throws IOException, InterruptedException {
		return startServer(script, Map.of());
	}

	/** {@link #startServer(String)}, with {@code environment} added to the server's. */
	static NodeServer startServer(String script, Map<String, String> environment)
			throws IOException, InterruptedException {
		return startServer(script, TestUpstreams.freePort(), environment);
	}

	/**
	 * {@link #startServer(String)} on {@code port} (a server started again where it ran before: a restart), with
	 * {@code environment} added to the server's. Its output is appended to {@code target/interop-<script>-<port>.log}
	 * ({@link NodeServer#log()}): one file per server, so that a test reading it sees no other test JVM's server.
	 */
	static NodeServer startServer(String script, int port, Map<String, String> environment)
			throws IOException, InterruptedException {
		Path log = Path.of("target", "interop-" + script + "-" + port + ".log").toAbsolutePath();
		ProcessBuilder builder = new ProcessBuilder("node", script).directory(DIRECTORY.toFile())
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
		builder.environment().putAll(environment);
		builder.environment().put("PORT", String.valueOf(port));
		Process process = builder.start();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			if (!process.isAlive()) {
				throw new AssertionError(script + " exited with " + process.exitValue() + "; see " + log);
			}
			try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
				return new NodeServer(process, port, log);
			}
			catch (IOException notYet) {
				Thread.sleep(100);
			}
		}
		process.destroyForcibly();
		throw new AssertionError(script + " did not listen on 127.0.0.1:" + port + " within 30s");
	}

	/** Runs the scenarios against {@code endpoint} with the TypeScript SDK client; returns its JSON transcript. */
	static String runScenarios(String endpoint) throws IOException {
		return runClient("scenarios.mjs", endpoint);
	}

	/** Runs the TypeScript SDK client {@code script} with {@code args}; returns what it printed on stdout. */
	static String runClient(String script, String... args) throws IOException {
		return runClient(Map.of(), script, args);
	}

	/** {@link #runClient(String, String...)}, with {@code environment} added to the client's. */
	static String runClient(Map<String, String> environment, String script, String... args) throws IOException {
		List<String> command = new ArrayList<>(List.of("node", script));
		command.addAll(List.of(args));
		PeerCommand result = run(command, environment, SCENARIOS_TIMEOUT);
		if (result.exitCode() != 0) {
			throw new AssertionError("The TypeScript SDK client " + script + " failed against " + args[0] + " (exit "
					+ result.exitCode() + "):\n" + result.stderr());
		}
		return result.stdout();
	}

	/** What {@code interop/member-server.mjs} on {@code port} counts ({@code GET /stats}). */
	static com.fasterxml.jackson.databind.JsonNode memberStats(int port) throws IOException, InterruptedException {
		java.net.http.HttpResponse<String> stats = java.net.http.HttpClient.newHttpClient()
			.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/stats")).build(),
					java.net.http.HttpResponse.BodyHandlers.ofString());
		return RawHttp.json(stats.body());
	}

	/** A Node MCP server process on 127.0.0.1, stopped with its children on close. */
	public record NodeServer(Process process, int port, Path log) implements AutoCloseable {

		public String url() {
			return "http://127.0.0.1:" + port + "/mcp";
		}

		@Override
		public void close() throws InterruptedException {
			process.descendants().forEach(ProcessHandle::destroy);
			process.destroy();
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				process.destroyForcibly();
			}
		}

	}

	private static PeerCommand run(List<String> command, Duration timeout) throws IOException {
		return PeerCommand.run(DIRECTORY, command, Map.of(), timeout);
	}

	private static PeerCommand run(List<String> command, Map<String, String> environment, Duration timeout)
			throws IOException {
		return PeerCommand.run(DIRECTORY, command, environment, timeout);
	}

}
