package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * A flood of large bodies against a relay in a small heap gets 503s, never an {@code OutOfMemoryError}: the relay runs
 * in a JVM of its own with a 192 MB heap (and {@code -XX:+ExitOnOutOfMemoryError}, as {@code deploy/start-relay.sh}
 * starts it, so an exhausted heap ends the process), its server's {@code max-buffered-body} at 20 MB, and sixteen
 * clients POST a {@code tools/call} of 18 MB each at once (a document as lines of 4 KB): 288 MB of bodies. The budget
 * for all bodies together (a quarter of the heap, about 46 MB) admits two at a time; the others are answered 503
 * {@code relay_overloaded} before their bodies are read, and the relay lives on to serve the next one.
 */
class BodyFloodInASmallHeapTest {

	private static final int CLIENTS = 16;

	private static final int BODY_BYTES = 18 * 1024 * 1024;

	@Test
	void aFloodOfLargeBodiesGets503sNotOutOfMemory() throws Exception {
		DisposableServer upstream = HttpServer.create().host("127.0.0.1").port(0)
			.handle((request, response) -> request.receive().then(response.status(200)
				.header("Content-Type", "application/json")
				.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}")).then()))
			.bindNow();
		int port = TestUpstreams.freePort();
		Path log = Files.createTempFile("relay-flood", ".log");
		Process relay = new ProcessBuilder(javaCommand(), "-Xmx192m", "-XX:+ExitOnOutOfMemoryError", "-cp",
				System.getProperty("java.class.path"), McpRelayApplication.class.getName(), "--server.port=" + port,
				"--server.address=127.0.0.1", "--mcp-relay.security.mode=none", "--mcp-relay.access-log.enabled=false",
				"--mcp-relay.servers.big.url=http://127.0.0.1:" + upstream.port() + "/mcp",
				"--mcp-relay.servers.big.max-buffered-body=20MB")
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
			awaitHealthy(client, port, relay, log);
			byte[] body = largeCall();
			List<CompletableFuture<Object>> calls = new ArrayList<>();
			for (int i = 0; i < CLIENTS; i++) {
				calls.add(client.sendAsync(post(port, body), HttpResponse.BodyHandlers.ofString())
					.<Object>thenApply(response -> response)
					.exceptionally(failure -> failure));
			}
			List<Integer> statuses = new ArrayList<>();
			for (CompletableFuture<Object> call : calls) {
				Object outcome = call.get(2, TimeUnit.MINUTES);
				if (outcome instanceof HttpResponse<?> response) {
					statuses.add(response.statusCode());
					if (response.statusCode() == 503) {
						assertThat(RawHttp.json((String) response.body()).at("/error/data/reason").asText())
							.isEqualTo("relay_overloaded");
					}
				}
				else {
					statuses.add(-1);
				}
			}
			String output = Files.readString(log);
			assertThat(output).as("the relay's output").doesNotContain("OutOfMemoryError");
			assertThat(relay.isAlive()).as("the relay lives (an exhausted heap would have ended it)").isTrue();
			assertThat(statuses).as("every call is answered: 200, or 503 past the budget").allMatch(
					status -> status == 200 || status == 503).contains(200, 503);

			HttpResponse<String> after = client.send(post(port, largeCall()), HttpResponse.BodyHandlers.ofString());
			assertThat(after.statusCode()).as("after the flood, a large body is served again").isEqualTo(200);
		}
		finally {
			relay.destroy();
			if (!relay.waitFor(30, TimeUnit.SECONDS)) {
				relay.destroyForcibly();
			}
			upstream.disposeNow();
		}
	}

	/** A {@code tools/call} of {@value #BODY_BYTES} bytes: a document as lines of 4 KB. */
	private static byte[] largeCall() {
		String line = "\"" + "0123456789abcdef".repeat(256) + "\"";
		StringBuilder call = new StringBuilder(BODY_BYTES + 8192).append(
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"store\",\"arguments\":{\"lines\":[")
			.append(line);
		while (call.length() < BODY_BYTES) {
			call.append(',').append(line);
		}
		return call.append("]}}}").toString().getBytes(StandardCharsets.UTF_8);
	}

	private static HttpRequest post(int port, byte[] body) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp/big"))
			.header("Content-Type", "application/json")
			.header("Accept", RawHttp.ACCEPT_BOTH)
			.timeout(Duration.ofMinutes(2))
			.POST(HttpRequest.BodyPublishers.ofByteArray(body))
			.build();
	}

	private static void awaitHealthy(HttpClient client, int port, Process relay, Path log) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
		while (System.nanoTime() < deadline) {
			assertThat(relay.isAlive()).as("the relay started: %s", Files.readString(log)).isTrue();
			try {
				HttpResponse<String> health = client.send(HttpRequest
					.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
					.timeout(Duration.ofSeconds(2))
					.build(), HttpResponse.BodyHandlers.ofString());
				if (health.statusCode() == 200) {
					return;
				}
			}
			catch (IOException notYet) {
				// not listening yet
			}
			Thread.sleep(200);
		}
		throw new AssertionError("the relay did not start within 90 s: " + Files.readString(log));
	}

	private static String javaCommand() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

}
