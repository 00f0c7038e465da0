package dev.mcprelay.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Redis as Sentinel runs it, on 127.0.0.1: a master, a replica of it, and three Sentinels watching the master under
 * {@value #MASTER} with a quorum of two (each {@code redis-server <config> --sentinel}, so no {@code redis-sentinel}
 * binary is needed), returned once the replica has synchronised and every Sentinel knows the replica and the two other
 * Sentinels, i.e. once a failover could happen. A relay is pointed at it with {@code spring.data.redis.sentinel.master}
 * and {@code nodes}, and finds the master through the Sentinels.
 */
public final class RedisSentinelProcesses implements SharedRedis {

	/** The name the Sentinels watch the master under. */
	public static final String MASTER = "relay-test";

	private final List<RedisServerProcess> data = new ArrayList<>();

	private final List<RedisServerProcess> sentinels = new ArrayList<>();

	private RedisSentinelProcesses() {
	}

	/** Starts the master, its replica and three Sentinels; skips the calling test where Redis is not installed. */
	public static RedisSentinelProcesses start() throws IOException, InterruptedException {
		RedisServerProcess.installedOrSkip();
		RedisSentinelProcesses deployment = new RedisSentinelProcesses();
		try {
			List<Integer> ports = FreePorts.distinct(5);
			// the replica's first synchronisation at once, not after the 5 s Redis waits for more replicas by default
			RedisServerProcess master = RedisServerProcess.start(ports.get(0), List.of("--dir", dataDir(ports.get(0)),
					"--repl-diskless-sync-delay", "0"));
			deployment.data.add(master);
			// the replica keeps what it synchronised in its folder, not in the tests' working directory
			deployment.data.add(RedisServerProcess.start(ports.get(1), List.of("--dir", dataDir(ports.get(1)),
					"--replicaof", "127.0.0.1", String.valueOf(master.port()))));
			for (int port : ports.subList(2, 5)) {
				Path dir = Files.createDirectories(Path.of("target", "redis-sentinel-" + port).toAbsolutePath());
				Path config = dir.resolve("sentinel.conf");
				Files.writeString(config, String.join("\n", "dir " + dir,
						"sentinel monitor " + MASTER + " 127.0.0.1 " + master.port() + " 2",
						"sentinel down-after-milliseconds " + MASTER + " 2000",
						"sentinel failover-timeout " + MASTER + " 10000",
						"sentinel parallel-syncs " + MASTER + " 1", ""));
				deployment.sentinels.add(RedisServerProcess.startSentinel(port, config));
			}
			deployment.awaitReady();
			return deployment;
		}
		catch (IOException | InterruptedException | RuntimeException | Error failed) {
			deployment.close();
			throw failed;
		}
	}

	private static String dataDir(int port) throws IOException {
		return Files.createDirectories(Path.of("target", "redis-data-" + port).toAbsolutePath()).toString();
	}

	@Override
	public String topology() {
		return "sentinel";
	}

	@Override
	public List<String> relayArguments() {
		return List.of("--spring.data.redis.sentinel.master=" + MASTER, "--spring.data.redis.sentinel.nodes="
				+ sentinels.stream().map(sentinel -> "127.0.0.1:" + sentinel.port()).collect(Collectors.joining(",")));
	}

	/**
	 * The port of the master the Sentinels name now, as the first Sentinel that is not {@link #freezeSentinel frozen}
	 * names it (a frozen one would hold the question until the socket's timeout).
	 */
	public int masterPort() throws IOException {
		return namedMaster(liveSentinels().get(0));
	}

	/** The Sentinels not {@link #freezeSentinel frozen}, in the order of {@link #relayArguments}. */
	private List<RedisServerProcess> liveSentinels() {
		List<RedisServerProcess> live = sentinels.stream().filter(RedisServerProcess::answers).toList();
		if (live.isEmpty()) {
			throw new IllegalStateException("every Sentinel is frozen: none can name the master");
		}
		return live;
	}

	private static int namedMaster(RedisServerProcess sentinel) throws IOException {
		List<?> address = (List<?>) RedisWire.call(sentinel.port(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER);
		return Integer.parseInt((String) address.get(1));
	}

	/**
	 * Stops the master the Sentinels name now abruptly (SIGKILL), as a crash looks to its clients; returns its port.
	 */
	public int killMaster() throws IOException, InterruptedException {
		int master = masterPort();
		data.stream().filter(server -> server.port() == master).findFirst().orElseThrow().kill();
		return master;
	}

	/**
	 * Stops the master the Sentinels name now where it is (SIGSTOP), as a hung server looks to its clients and to the
	 * Sentinels; returns its port.
	 */
	public int freezeMaster() throws IOException, InterruptedException {
		int master = masterPort();
		data.stream().filter(server -> server.port() == master).findFirst().orElseThrow().freeze();
		return master;
	}

	/** Lets every frozen server and Sentinel go on. */
	public void thawAll() throws IOException, InterruptedException {
		for (RedisServerProcess server : data) {
			server.thaw();
		}
		for (RedisServerProcess server : sentinels) {
			server.thaw();
		}
	}

	/**
	 * Stops the Sentinel at {@code index} (0 to 2, in the order of {@link #relayArguments}) where it is (SIGSTOP): its
	 * kernel still accepts connections, and nothing is answered until {@link #thawAll()}.
	 */
	public void freezeSentinel(int index) throws IOException, InterruptedException {
		sentinels.get(index).freeze();
	}

	/** The port of the Sentinel at {@code index} (0 to 2, in the order of {@link #relayArguments}). */
	public int sentinelPort(int index) {
		return sentinels.get(index).port();
	}

	/**
	 * Gives every Sentinel an ACL user {@code user} with {@code password} and the ACL {@code rules} (e.g. {@code ~*
	 * +@all}: Redis 7 gives a new user no pub/sub channel unless the rules grant some), for relays given
	 * {@code spring.data.redis.sentinel.username} and {@code password}.
	 */
	public void addSentinelUser(String user, String password, String... rules) throws IOException {
		List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", user, "on", ">" + password));
		command.addAll(List.of(rules));
		for (RedisServerProcess sentinel : sentinels) {
			Object answer = RedisWire.call(sentinel.port(), command.toArray(String[]::new));
			if (!"OK".equals(answer)) {
				throw new AssertionError("ACL SETUSER was answered " + answer);
			}
		}
	}

	/**
	 * A graceful failover, as an operator starts one before maintenance ({@code SENTINEL FAILOVER}), asked of the
	 * Sentinel at {@code sentinel} (0 to 2, in the order of {@link #relayArguments}), which leads it: the Sentinels
	 * promote the replica while the master still runs, and demote the old master (make it a replica of the new one)
	 * only once they see it again, some seconds later; the other Sentinels learn the new master from the leader's
	 * hello messages. Returns the old master's port.
	 */
	public int failover(int sentinel) throws IOException {
		int master = masterPort();
		Object answer = RedisWire.call(sentinels.get(sentinel).port(), "SENTINEL", "FAILOVER", MASTER);
		if (!"OK".equals(answer)) {
			throw new AssertionError("SENTINEL FAILOVER was answered " + answer);
		}
		return master;
	}

	/**
	 * Waits until {@code old}, a master a graceful failover replaced, is a replica of the new master and in sync
	 * with it: from then on it takes no write.
	 */
	public void awaitDemoted(int old) throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (true) {
			String replication = RedisWire.text(old, "INFO", "replication");
			if ("slave".equals(RedisWire.field(replication, "role"))
					&& "up".equals(RedisWire.field(replication, "master_link_status"))) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new AssertionError("the Sentinels did not demote the old master " + old + " within 60s");
			}
			Thread.sleep(50);
		}
	}

	/**
	 * Waits until a Sentinel that is not {@link #freezeSentinel frozen} names a master other than {@code old} and it
	 * takes writes (a promoted replica no longer says {@code role:slave}); returns its port.
	 */
	public int awaitFailoverFrom(int old) throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (true) {
			for (RedisServerProcess sentinel : liveSentinels()) {
				int named = namedMaster(sentinel);
				if (named != old && "master".equals(RedisWire.field(RedisWire.text(named, "INFO", "replication"), "role"))) {
					return named;
				}
			}
			if (System.nanoTime() > deadline) {
				throw new AssertionError("the Sentinels did not promote the replica of " + old + " within 60s");
			}
			Thread.sleep(50);
		}
	}

	/**
	 * Waits until the replica has acknowledged all the master has written (its replication offset equals the
	 * master's): what was written until now survives the master's loss. Redis replicates asynchronously: without such
	 * a wait, the last writes a master acknowledged may be lost with it.
	 */
	public void awaitReplicaInSync() throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (true) {
			String master = RedisWire.text(masterPort(), "INFO", "replication");
			String replica = RedisWire.text(data.get(1).port(), "INFO", "replication");
			if (RedisWire.field(master, "master_repl_offset").equals(RedisWire.field(replica, "slave_repl_offset"))) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new AssertionError("the replica did not catch up with the master within 30s");
			}
			Thread.sleep(50);
		}
	}

	/** The ports of the master and the replica, in the order they were started. */
	public List<Integer> dataPorts() {
		return data.stream().map(RedisServerProcess::port).toList();
	}

	private void awaitReady() throws IOException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!ready()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("the Sentinels on " + sentinels.stream().map(RedisServerProcess::port).toList()
						+ " did not all see the replica and each other within 30s");
			}
			Thread.sleep(100);
		}
	}

	private boolean ready() throws IOException {
		String replication = RedisWire.text(data.get(1).port(), "INFO", "replication");
		if (!"up".equals(RedisWire.field(replication, "master_link_status"))) {
			return false;
		}
		for (RedisServerProcess sentinel : sentinels) {
			Map<String, String> master = pairs((List<?>) RedisWire.call(sentinel.port(), "SENTINEL", "MASTER", MASTER));
			if (!"1".equals(master.get("num-slaves")) || !"2".equals(master.get("num-other-sentinels"))) {
				return false;
			}
		}
		return true;
	}

	private static Map<String, String> pairs(List<?> flat) {
		Map<String, String> map = new java.util.HashMap<>();
		for (int i = 0; i + 1 < flat.size(); i += 2) {
			map.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
		}
		return map;
	}

	@Override
	public void close() throws InterruptedException {
		for (RedisServerProcess sentinel : sentinels) {
			sentinel.close();
		}
		for (RedisServerProcess server : data) {
			server.close();
		}
	}

}
