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
 * A Redis Cluster of three masters on 127.0.0.1, without replicas or with one replica each, one {@code redis-server}
 * process per node ({@code cluster-enabled yes}, its bus on a free port of its own), made into a cluster with
 * {@code redis-cli --cluster create ... --cluster-replicas <n> --cluster-yes} as an operator would, and returned once
 * every node says {@code cluster_state:ok} and knows every other, and every replica has synchronised with its master.
 * A relay is pointed at it with {@code spring.data.redis.cluster.nodes} (the masters only: it learns the rest).
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
		return start(0);
	}

	/**
	 * Starts three masters with {@code replicasPerMaster} replicas each (a replica takes its master's place when the
	 * master fails, after {@code cluster-node-timeout}, 3 s here) and makes them a cluster; skips the calling test where
	 * Redis is not installed.
	 */
	public static RedisClusterProcesses start(int replicasPerMaster) throws IOException, InterruptedException {
		RedisServerProcess.installedOrSkip();
		Path cli = REDIS_CLI.locateOrInstall();
		List<RedisServerProcess> nodes = new ArrayList<>();
		RedisClusterProcesses cluster = new RedisClusterProcesses(nodes);
		try {
			int count = MASTERS * (1 + replicasPerMaster);
			List<Integer> ports = FreePorts.distinct(2 * count);
			for (int i = 0; i < count; i++) {
				int port = ports.get(2 * i);
				Path dir = Files.createDirectories(Path.of("target", "redis-cluster-" + port).toAbsolutePath());
				Files.deleteIfExists(dir.resolve("nodes.conf"));
				nodes.add(RedisServerProcess.start(port, List.of("--cluster-enabled", "yes", "--cluster-config-file",
						dir.resolve("nodes.conf").toString(), "--cluster-port", String.valueOf(ports.get(2 * i + 1)),
						"--cluster-node-timeout", "3000", "--dir", dir.toString())));
			}
			List<String> command = new ArrayList<>(List.of(cli.toString(), "--cluster", "create"));
			nodes.forEach(node -> command.add("127.0.0.1:" + node.port()));
			command.addAll(List.of("--cluster-replicas", String.valueOf(replicasPerMaster), "--cluster-yes"));
			Path log = Path.of("target", "redis-cluster-create-" + nodes.get(0).port() + ".log");
			Process create = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
			if (!create.waitFor(60, TimeUnit.SECONDS) || create.exitValue() != 0) {
				create.destroyForcibly();
				throw new AssertionError("redis-cli --cluster create failed; see " + log);
			}
			cluster.awaitState("ok");
			cluster.awaitReplicasInSync();
			return cluster;
		}
		catch (IOException | InterruptedException | RuntimeException | Error failed) {
			cluster.close();
			throw failed;
		}
	}

	/** The nodes' client ports, of masters and replicas alike, those stopped by {@link #kill} included. */
	public List<Integer> ports() {
		return nodes.stream().map(RedisServerProcess::port).toList();
	}

	/** The client ports of the nodes that still run and answer (none killed or frozen). */
	public List<Integer> running() {
		return nodes.stream().filter(RedisServerProcess::answers).map(RedisServerProcess::port).toList();
	}

	/** The port of the master that serves {@code key}'s hash slot now, as the first running node sees the cluster. */
	public int masterOf(String key) throws IOException {
		long slot = (Long) RedisWire.call(running().get(0), "CLUSTER", "KEYSLOT", key);
		for (Object range : (List<?>) RedisWire.call(running().get(0), "CLUSTER", "SLOTS")) {
			List<?> fields = (List<?>) range;
			if ((Long) fields.get(0) <= slot && slot <= (Long) fields.get(1)) {
				return Math.toIntExact((Long) ((List<?>) fields.get(2)).get(1));
			}
		}
		throw new AssertionError("no master serves the hash slot " + slot + " of " + key);
	}

	/** Stops the node on {@code port} abruptly (SIGKILL), as a crash looks to the others and to clients. */
	public void kill(int port) throws InterruptedException {
		nodes.stream().filter(node -> node.port() == port).findFirst().orElseThrow().kill();
	}

	/** Stops the node on {@code port} where it is (SIGSTOP), as a hung master looks to the others and to clients. */
	public void freeze(int port) throws IOException, InterruptedException {
		nodes.stream().filter(node -> node.port() == port).findFirst().orElseThrow().freeze();
	}

	/** Lets every frozen node go on. */
	public void thawAll() throws IOException, InterruptedException {
		for (RedisServerProcess node : nodes) {
			node.thaw();
		}
	}

	/**
	 * Waits until every running replica has acknowledged all its master has written (its replication offset equals
	 * the master's): what was written until now survives the master's loss. Redis replicates asynchronously: without
	 * such a wait, the last writes a master acknowledged may be lost with it.
	 */
	public void awaitReplicasInSync() throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!replicasInSync()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("the replicas of the cluster on " + ports() + " did not catch up within 30s");
			}
			Thread.sleep(50);
		}
	}

	private boolean replicasInSync() throws IOException {
		for (int port : running()) {
			String replication = RedisWire.text(port, "INFO", "replication");
			if ("slave".equals(RedisWire.field(replication, "role"))) {
				int master = Integer.parseInt(RedisWire.field(replication, "master_port"));
				String ofMaster = RedisWire.text(master, "INFO", "replication");
				if (!"up".equals(RedisWire.field(replication, "master_link_status"))
						|| !RedisWire.field(ofMaster, "master_repl_offset")
							.equals(RedisWire.field(replication, "slave_repl_offset"))) {
					return false;
				}
			}
		}
		return true;
	}

	/**
	 * Waits until the running nodes agree the cluster is {@code ok} again with {@code master} no longer serving slots
	 * (its replica has been promoted); returns the port of the master that serves {@code key} then.
	 */
	public int awaitFailoverOf(int master, String key) throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (true) {
			boolean ok = true;
			for (int port : running()) {
				ok &= "ok".equals(RedisWire.field(RedisWire.text(port, "CLUSTER", "INFO"), "cluster_state"));
			}
			if (ok) {
				int now = masterOf(key);
				if (now != master) {
					return now;
				}
			}
			if (System.nanoTime() > deadline) {
				throw new AssertionError("no replica took the place of the master on " + master + " within 60s");
			}
			Thread.sleep(50);
		}
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

	/**
	 * Every key the cluster holds that matches {@code pattern}, with the port of a running node that holds it (a
	 * master, or a replica of it).
	 */
	public Map<String, Integer> keys(String pattern) throws IOException {
		Map<String, Integer> keys = new TreeMap<>();
		for (int port : running()) {
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
						&& String.valueOf(nodes.size()).equals(RedisWire.field(info, "cluster_known_nodes"));
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
