package dev.mcprelay.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of three masters on 127.0.0.1 (no replicas), one {@code redis-server} process per node
 * ({@code cluster-enabled yes}, its bus on a free port of its own), made into a cluster with
 * {@code redis-cli --cluster create ... --cluster-yes} as an operator would, and returned once every node says
 * {@code cluster_state:ok}. A relay is pointed at it with {@code spring.data.redis.cluster.nodes}.
 */
public final class RedisClusterProcesses implements SharedRedis {

	private static final DebianTool REDIS_CLI = new DebianTool("redis-cli", "redis-tools", "These tests need Redis's "
			+ "command line client to make a cluster: install Redis (Debian/Ubuntu: apt-get install redis-server; macOS: "
			+ "brew install redis) and run the tests again.");

	private static final int MASTERS = 3;

	private final List<RedisServerProcess> nodes;

	private RedisClusterProcesses(List<RedisServerProcess> nodes) {
		this.nodes = nodes;
	}

	/** Starts the three nodes and makes them a cluster; skips the calling test where Redis is not installed. */
	public static RedisClusterProcesses start() throws IOException, InterruptedException {
		RedisServerProcess.installedOrSkip();
		Path cli = REDIS_CLI.locateOrInstall();
		List<RedisServerProcess> nodes = new ArrayList<>();
		RedisClusterProcesses cluster = new RedisClusterProcesses(nodes);
		try {
			List<Integer> ports = FreePorts.distinct(2 * MASTERS);
			for (int i = 0; i < MASTERS; i++) {
				int port = ports.get(2 * i);
				Path dir = Files.createDirectories(Path.of("target", "redis-cluster-" + port).toAbsolutePath());
				Files.deleteIfExists(dir.resolve("nodes.conf"));
				nodes.add(RedisServerProcess.start(port, List.of("--cluster-enabled", "yes", "--cluster-config-file",
						dir.resolve("nodes.conf").toString(), "--cluster-port", String.valueOf(ports.get(2 * i + 1)),
						"--cluster-node-timeout", "3000", "--dir", dir.toString())));
			}
			List<String> command = new ArrayList<>(List.of(cli.toString(), "--cluster", "create"));
			nodes.forEach(node -> command.add("127.0.0.1:" + node.port()));
			command.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
			Path log = Path.of("target", "redis-cluster-create-" + nodes.get(0).port() + ".log");
			Process create = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
			if (!create.waitFor(60, TimeUnit.SECONDS) || create.exitValue() != 0) {
				create.destroyForcibly();
				throw new AssertionError("redis-cli --cluster create failed; see " + log);
			}
			cluster.awaitState("ok");
			return cluster;
		}
		catch (IOException | InterruptedException | RuntimeException | Error failed) {
			cluster.close();
			throw failed;
		}
	}

	/** The nodes' client ports. */
	public List<Integer> ports() {
		return nodes.stream().map(RedisServerProcess::port).toList();
	}

	@Override
	public String topology() {
		return "cluster";
	}

	@Override
	public List<String> relayArguments() {
		return List.of("--spring.data.redis.cluster.nodes="
				+ ports().stream().map(port -> "127.0.0.1:" + port).collect(Collectors.joining(",")));
	}

	/** Every key the cluster holds that matches {@code pattern}, with the port of the node that holds it. */
	public Map<String, Integer> keys(String pattern) throws IOException {
		Map<String, Integer> keys = new TreeMap<>();
		for (int port : ports()) {
			((List<?>) RedisWire.call(port, "KEYS", pattern)).forEach(key -> keys.put((String) key, port));
		}
		return keys;
	}

	private void awaitState(String state) throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (true) {
			boolean all = true;
			for (int port : ports()) {
				String info = RedisWire.text(port, "CLUSTER", "INFO");
				all &= state.equals(RedisWire.field(info, "cluster_state"))
						&& String.valueOf(MASTERS).equals(RedisWire.field(info, "cluster_known_nodes"));
			}
			if (all) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new AssertionError("the cluster on " + ports() + " was not '" + state + "' within 30s");
			}
			Thread.sleep(50);
		}
	}

	@Override
	public void close() throws InterruptedException {
		for (RedisServerProcess node : nodes) {
			node.close();
		}
	}

}
