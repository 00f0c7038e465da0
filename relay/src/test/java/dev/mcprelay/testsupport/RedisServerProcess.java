package dev.mcprelay.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * A real Redis server (Debian's {@code redis-server}) on 127.0.0.1 at a free port, with no persistence and (unless
 * its options give a {@code --dir}) an empty working directory of its own, so that it never loads an RDB file another
 * server wrote (a replica keeps the one a full sync sent it), for tests
 * that need shared state between relays: a standalone server ({@link SharedRedis}), or one part of a Cluster or of a
 * Sentinel deployment ({@link RedisClusterProcesses}, {@link RedisSentinelProcesses}) with the options they add. When
 * {@code redis-server} is not installed, it is installed with {@code apt-get} (as root, which CI and a fresh machine of
 * this project's kind are); elsewhere the failure says what to install ({@link #installedOrSkip()} makes it a skip).
 * Stopped on {@link #close()}.
 */
public final class RedisServerProcess implements SharedRedis {

	private static final DebianTool REDIS = new DebianTool("redis-server", "redis-server", "These tests need a Redis "
			+ "server: install Redis (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) and run the "
			+ "tests again.");

	private final Process process;

	private final int port;

	private final String password;

	private volatile boolean frozen;

	private RedisServerProcess(Process process, int port, String password) {
		this.process = process;
		this.port = port;
		this.password = password;
	}

	/** Starts a server and waits until it answers {@code PING}. */
	public static RedisServerProcess start() throws IOException, InterruptedException {
		return start(TestUpstreams.freePort());
	}

	/** Starts a server on {@code port} and waits until it answers {@code PING}. */
	public static RedisServerProcess start(int port) throws IOException, InterruptedException {
		return startWith(port, null);
	}

	/** Starts a server that takes clients with {@code password} only ({@code requirepass}). */
	public static RedisServerProcess startWithPassword(String password) throws IOException, InterruptedException {
		return startWith(TestUpstreams.freePort(), password);
	}

	/**
	 * Starts a server on {@code port} with {@code options} after the usual ones (e.g. {@code --cluster-enabled yes},
	 * {@code --replicaof 127.0.0.1 6379}) and waits until it answers {@code PING}.
	 */
	public static RedisServerProcess start(int port, List<String> options) throws IOException, InterruptedException {
		return start(port, null, List.of(), options);
	}

	/**
	 * Starts a Sentinel on {@code port} ({@code redis-server <config> --sentinel}, which needs no
	 * {@code redis-sentinel} binary) from {@code config}, a file it may rewrite, and waits until it answers {@code PING}.
	 */
	public static RedisServerProcess startSentinel(int port, Path config) throws IOException, InterruptedException {
		return start(port, null, List.of(config.toAbsolutePath().toString(), "--sentinel"), List.of());
	}

	/**
	 * Finds {@code redis-server}, installing it as {@link DebianTool} does; where it is not installed and cannot be,
	 * the calling test (or class, from {@code @BeforeAll}) is skipped with what to install.
	 */
	public static void installedOrSkip() throws IOException, InterruptedException {
		try {
			locateOrInstall();
		}
		catch (AssertionError missing) {
			Assumptions.abort("Skipped: " + missing.getMessage());
		}
	}

	private static RedisServerProcess startWith(int port, String password) throws IOException, InterruptedException {
		List<String> options = password == null ? List.of() : List.of("--requirepass", password);
		return start(port, password, List.of(), options);
	}

	private static RedisServerProcess start(int port, String password, List<String> leading, List<String> options)
			throws IOException, InterruptedException {
		Path binary = locateOrInstall();
		Path log = Path.of("target", "redis-" + port + ".log");
		List<String> command = new ArrayList<>(List.of(binary.toString()));
		command.addAll(leading);
		command.addAll(List.of("--port", String.valueOf(port), "--bind",
				"127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes"));
		if (leading.isEmpty()) {
			command.addAll(List.of("--dir", freshDirectory(port).toString()));
		}
		command.addAll(options);
		Process process = new ProcessBuilder(command)
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		RedisServerProcess redis = new RedisServerProcess(process, port, password);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			if (!process.isAlive()) {
				throw new AssertionError("redis-server exited with " + process.exitValue() + "; see " + log);
			}
			if (redis.ping()) {
				return redis;
			}
			Thread.sleep(50);
		}
		redis.close();
		throw new AssertionError("redis-server did not answer PING on 127.0.0.1:" + port + " within 20s; see " + log);
	}

	/**
	 * An empty directory of its own for a data server started on {@code port}: with the shared working directory a
	 * replica left the RDB its master's full sync sent it there ({@code dump.rdb}, kept even with {@code --save ""}),
	 * and the next server started loaded it, with that master's replication ID as its {@code master_replid2} and its
	 * keys (MinoritySentinelOfAnotherLineageTest: the "foreign" master proved it was ours).
	 */
	private static Path freshDirectory(int port) throws IOException {
		Path target = Files.createDirectories(Path.of("target").toAbsolutePath());
		return Files.createTempDirectory(target, "redis-data-" + port + "-");
	}

	public int port() {
		return port;
	}

	@Override
	public String topology() {
		return "standalone";
	}

	@Override
	public List<String> relayArguments() {
		List<String> arguments = new ArrayList<>(List.of("--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + port));
		if (password != null) {
			arguments.add("--spring.data.redis.password=" + password);
		}
		return arguments;
	}

	/** Whether the process still runs (a Sentinel test stops the master and waits for the others to notice). */
	public boolean isAlive() {
		return process.isAlive();
	}

	/** Whether the process runs and is not {@link #freeze() frozen}: it answers. */
	public boolean answers() {
		return process.isAlive() && !frozen;
	}

	/**
	 * Stops the process where it is (SIGSTOP), as a hung server looks to its clients: its kernel still accepts
	 * connections and acknowledges what they send, and nothing is answered until {@link #thaw()}.
	 */
	public void freeze() throws IOException, InterruptedException {
		signal("STOP");
		frozen = true;
	}

	/** Lets a {@link #freeze() frozen} process go on (SIGCONT). */
	public void thaw() throws IOException, InterruptedException {
		if (frozen) {
			signal("CONT");
			frozen = false;
		}
	}

	private void signal(String name) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).inheritIO().start();
		if (kill.waitFor() != 0) {
			throw new AssertionError("kill -" + name + " " + process.pid() + " failed");
		}
	}

	/** Stops the server abruptly, as a crash or a network cut would look to its clients. */
	public void kill() throws InterruptedException {
		process.destroyForcibly();
		process.waitFor(10, TimeUnit.SECONDS);
	}

	@Override
	public void close() throws InterruptedException {
		try {
			thaw();
		}
		catch (IOException stillFrozen) {
			// SIGKILL below ends it anyway
		}
		process.destroy();
		if (!process.waitFor(10, TimeUnit.SECONDS)) {
			process.destroyForcibly();
		}
	}

	private boolean ping() {
		try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
			socket.setSoTimeout(2000);
			OutputStream out = socket.getOutputStream();
			BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
			if (password != null) {
				out.write(("AUTH " + password + "\r\n").getBytes(StandardCharsets.US_ASCII));
				out.flush();
				if (!"+OK".equals(in.readLine())) {
					return false;
				}
			}
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			String line = in.readLine();
			return "+PONG".equals(line);
		}
		catch (IOException notYet) {
			return false;
		}
	}

	private static Path locateOrInstall() throws IOException, InterruptedException {
		return REDIS.locateOrInstall();
	}

}
