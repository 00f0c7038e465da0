package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.mcprelay.testsupport.NginxLoadBalancer;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.SharedRedis;
import dev.mcprelay.testsupport.SseReader;
import dev.mcprelay.testsupport.RelayJarProcess;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * A relay lost mid-stream loses no event: the TypeScript SDK client holds a GET stream through nginx (round robin, no
 * affinity) in front of three relays (the jar as it ships, over one Redis); the relay that holds the stream is killed
 * (SIGKILL), then the one the client resumed on is stopped (SIGTERM, its drain closes the stream), and each time the
 * client reconnects through nginx with {@code Last-Event-ID} and resumes on another relay: on a pass-through server
 * from the upstream's own event ids (a TypeScript SDK server with an event store), on a virtual server from the
 * position of each member the merged event id carries. Every numbered log message arrives once, in order. In the
 * longer tier ({@code -Pscale}).
 */
@Tag("scale")
class RelayLostMidStreamIT {

	/** Where the relays keep what they share; one server here, a Cluster in a subclass. */
	SharedRedis redis() {
		return redis;
	}

	private static NodePeers.NodeServer resumable;

	private static SharedRedis redis;

	private final List<RelayJarProcess> relays = new ArrayList<>();

	private NginxLoadBalancer balancer;

	@BeforeAll
	static void startServers() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		resumable = NodePeers.startServer("resumable-server.mjs");
		redis = RedisServerProcess.start();
	}

	/** Replaces the Redis the relays share (closing the one started before), for a subclass of another topology. */
	static void share(SharedRedis other) throws Exception {
		redis.close();
		redis = other;
	}

	@AfterAll
	static void stopServers() throws Exception {
		if (resumable != null) {
			resumable.close();
		}
		if (redis != null) {
			redis.close();
		}
	}

	@AfterEach
	void stopRelays() throws Exception {
		if (balancer != null) {
			balancer.close();
		}
		for (RelayJarProcess relay : relays) {
			relay.close();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "resumable", "ticker" })
	void aStreamWhoseRelayIsKilledThenDrainedResumesOnAnotherWithEveryEventOnce(String server) throws Exception {
		startRelays(server);
		java.nio.file.Path ticks = java.nio.file.Path.of("target", "lost-" + server + "-ticks.txt").toAbsolutePath();
		java.nio.file.Files.deleteIfExists(ticks);
		CompletableFuture<String> client = CompletableFuture.supplyAsync(() -> {
			try {
				return NodePeers.runClient("resume-scenario.mjs",
						"http://127.0.0.1:" + balancer.port() + "/mcp/" + server, "30", ticks.toString());
			}
			catch (java.io.IOException ex) {
				throw new IllegalStateException(ex);
			}
		});

		awaitTicks(ticks, 3);
		RelayJarProcess first = awaitHolder(server, null);
		first.kill();
		awaitTicks(ticks, lines(ticks) + 3);
		RelayJarProcess second = awaitHolder(server, first);
		second.stop();
		JsonNode outcome = new ObjectMapper().readTree(client.get(120, TimeUnit.SECONDS));

		List<String> received = new ArrayList<>();
		outcome.get("data").forEach(data -> received.add(data.asText()));
		assertThat(received).as("every tick once, in order, none lost while the stream moved: %s", outcome)
			.hasSizeGreaterThanOrEqualTo(30)
			.isEqualTo(IntStream.rangeClosed(1, received.size()).mapToObj(n -> "tick " + n).toList());
		assertThat(balancer.accessLog().stream()
			.filter(line -> line.startsWith("GET /mcp/" + server + " "))
			.map(line -> "upstream=" + line.substring(Math.max(line.lastIndexOf(' '), line.lastIndexOf('=')) + 1))
			.distinct()).as("the stream was held by the relay killed, then the one drained: %s", balancer.accessLog())
			.contains("upstream=127.0.0.1:" + first.port(), "upstream=127.0.0.1:" + second.port());
	}

	/** Waits until the client has written {@code count} ticks to {@code file} (bounded: never a hang). */
	private static void awaitTicks(java.nio.file.Path file, int count) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (lines(file) < count) {
			assertThat(System.nanoTime()).as("%d ticks reached the client within 60s", count).isLessThan(deadline);
			Thread.sleep(50);
		}
	}

	private static int lines(java.nio.file.Path file) throws java.io.IOException {
		return java.nio.file.Files.exists(file) ? java.nio.file.Files.readAllLines(file).size() : 0;
	}

	/**
	 * A long {@code tools/call} whose relay is killed (SIGKILL) while its stream is open: the scripted client resumes
	 * the call's stream through nginx with a GET and {@code Last-Event-ID} (the upstream's own id), on another relay,
	 * and gets the progress it had not seen and the result, each once; never a hang.
	 */
	@org.junit.jupiter.api.Test
	void aLongCallWhoseRelayIsKilledGetsItsResultAfterResumingOnAnother() throws Exception {
		startRelays("resumable");
		RawHttp http = new RawHttp(balancer.port());
		String session = initialize(http);
		EventStream call = EventStream.open(http, http.post("resumable", countSlowly(20)), session);
		call.await(events -> events.size() >= 3);
		String holder = call.servedBy();
		RelayJarProcess killed = relays.stream().filter(relay -> holder.endsWith(":" + relay.port())).findFirst()
			.orElseThrow();
		killed.kill();
		call.awaitEnd();
		assertThat(call.events()).as("the stream died before the result").noneMatch(event -> event.data().has("result"));

		EventStream resumed = EventStream.open(http, http.request("resumable").GET()
			.header("Accept", "text/event-stream")
			.header("Last-Event-ID", call.events().get(call.events().size() - 1).id()), session);
		resumed.await(events -> events.stream().anyMatch(event -> event.data().has("result")));

		assertThat(resumed.servedBy()).as("resumed on another relay").isNotEqualTo(holder);
		List<Integer> progress = new ArrayList<>();
		java.util.stream.Stream.concat(call.events().stream(), resumed.events().stream())
			.filter(event -> "notifications/progress".equals(event.data().path("method").asText()))
			.forEach(event -> progress.add(event.data().at("/params/progress").asInt()));
		assertThat(progress).as("every step once, in order, across the two streams")
			.isEqualTo(IntStream.rangeClosed(1, 20).boxed().toList());
		assertThat(resumed.events().get(resumed.events().size() - 1).data().at("/result/content/0/text").asText())
			.isEqualTo("counted 20");
	}

	/**
	 * A long {@code tools/call} whose relay is stopped (SIGTERM) while its stream is open finishes on that relay within
	 * the shutdown's grace ({@code shutdown.stream-grace-period}, 10 s): its result arrives, the relay exits after.
	 */
	@org.junit.jupiter.api.Test
	void aLongCallWhoseRelayIsDrainedFinishesThere() throws Exception {
		startRelays("resumable");
		RawHttp http = new RawHttp(balancer.port());
		String session = initialize(http);
		EventStream call = EventStream.open(http, http.post("resumable", countSlowly(10)), session);
		call.await(events -> events.size() >= 2);
		RelayJarProcess drained = relays.stream().filter(relay -> call.servedBy().endsWith(":" + relay.port()))
			.findFirst().orElseThrow();
		CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> {
			try {
				drained.stop();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		call.awaitEnd();
		stopped.get(60, TimeUnit.SECONDS);

		assertThat(call.events().get(call.events().size() - 1).data().at("/result/content/0/text").asText())
			.as("%s", call.events()).isEqualTo("counted 10");
		assertThat(drained.isAlive()).isFalse();
	}

	private static String initialize(RawHttp http) {
		HttpResponse<String> initialized = http.send(http.post("resumable", "{\"jsonrpc\":\"2.0\",\"id\":1,"
				+ "\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
				+ "\"clientInfo\":{\"name\":\"scripted\",\"version\":\"1\"}}}"));
		assertThat(initialized.statusCode()).as(initialized.body()).isEqualTo(200);
		String session = initialized.headers().firstValue("Mcp-Session-Id").orElseThrow();
		http.send(http.post("resumable", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
			.header("Mcp-Session-Id", session)
			.header("MCP-Protocol-Version", "2025-11-25"));
		return session;
	}

	private static String countSlowly(int steps) {
		return "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"count-slowly\","
				+ "\"arguments\":{\"steps\":" + steps + "},\"_meta\":{\"progressToken\":\"count\"}}}";
	}

	private void startRelays(String server) throws Exception {
		List<String> arguments = new ArrayList<>(List.of("--mcp-relay.security.mode=none",
				"--mcp-relay.sessions.store=redis", "--mcp-relay.servers.resumable.url=" + resumable.url(),
				"--mcp-relay.servers.sdk.url=" + TestUpstreams.SDK.url("/mcp"),
				"--mcp-relay.virtual-servers.ticker.members=resumable,sdk",
				"--mcp-relay.virtual-servers.ticker.prefix.resumable="));
		arguments.addAll(redis().relayArguments());
		for (int i = 1; i <= 3; i++) {
			relays.add(RelayJarProcess.start("lost-" + redis().topology() + "-" + server + "-relay-" + i, arguments));
		}
		for (RelayJarProcess relay : relays) {
			relay.awaitReady();
		}
		balancer = NginxLoadBalancer.start(relays.stream().map(RelayJarProcess::port).toList());
	}

	/**
	 * The live relay other than {@code not} that holds a stream of the client's: the one with a connection from nginx
	 * (which opens one per request) open on two looks 300 ms apart, while the client sends nothing else.
	 */
	private RelayJarProcess awaitHolder(String server, RelayJarProcess not) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (System.nanoTime() < deadline) {
			for (RelayJarProcess relay : relays) {
				if (relay != not && relay.isAlive() && relay.establishedConnections() > 0) {
					Thread.sleep(300);
					if (relay.establishedConnections() > 0) {
						return relay;
					}
				}
			}
			Thread.sleep(100);
		}
		throw new AssertionError("no relay held a stream of " + server + " within 60s");
	}

	/**
	 * An SSE response read as it comes, by a thread of its own, until it ends or breaks; waits are bounded (30 s), so
	 * a stream that hangs fails the test.
	 */
	private static final class EventStream {

		private final List<SseReader.Event> events = new ArrayList<>();

		private final String servedBy;

		private final CompletableFuture<Void> ended = new CompletableFuture<>();

		private EventStream(HttpResponse<java.io.InputStream> response) {
			assertThat(response.statusCode()).isEqualTo(200);
			this.servedBy = response.headers().firstValue(NginxLoadBalancer.SERVED_BY).orElseThrow();
			Thread reader = new Thread(() -> read(response.body()), "event-stream");
			reader.setDaemon(true);
			reader.start();
		}

		static EventStream open(RawHttp http, HttpRequest.Builder request, String session) {
			return new EventStream(http.open(request.header("Mcp-Session-Id", session)
				.header("MCP-Protocol-Version", "2025-11-25")));
		}

		private void read(java.io.InputStream in) {
			try (java.io.BufferedReader lines = new java.io.BufferedReader(
					new java.io.InputStreamReader(in, java.nio.charset.StandardCharsets.UTF_8))) {
				String id = null;
				StringBuilder data = new StringBuilder();
				String line;
				while ((line = lines.readLine()) != null) {
					if (line.startsWith("id:")) {
						id = line.substring(3).strip();
					}
					else if (line.startsWith("data:")) {
						data.append(line.substring(5).strip());
					}
					else if (line.isEmpty() && !data.isEmpty()) {
						synchronized (events) {
							events.add(new SseReader.Event(id, RawHttp.json(data.toString())));
							events.notifyAll();
						}
						id = null;
						data.setLength(0);
					}
				}
			}
			catch (java.io.IOException broken) {
				// the relay or nginx dropped the stream
			}
			finally {
				ended.complete(null);
				synchronized (events) {
					events.notifyAll();
				}
			}
		}

		String servedBy() {
			return servedBy;
		}

		List<SseReader.Event> events() {
			synchronized (events) {
				return List.copyOf(events);
			}
		}

		void await(java.util.function.Predicate<List<SseReader.Event>> condition) throws InterruptedException {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			synchronized (events) {
				while (!condition.test(events)) {
					long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
					assertThat(left).as("the stream's events within 30s: %s (ended: %s)", events, ended.isDone())
						.isPositive();
					events.wait(left);
				}
			}
		}

		void awaitEnd() throws Exception {
			ended.get(30, TimeUnit.SECONDS);
		}

	}

}
