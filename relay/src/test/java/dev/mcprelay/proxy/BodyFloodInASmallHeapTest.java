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
 * A flood of large bodies against a relay in a small heap gets 503s (and 413s), never an {@code OutOfMemoryError}: the
 * relay runs in a JVM of its own with a 192 MB heap (and {@code -XX:+ExitOnOutOfMemoryError}, as
 * {@code deploy/start-relay.sh} starts it, so an exhausted heap ends the process), its server's
 * {@code max-buffered-body} at 20 MB, and sixteen clients POST a {@code tools/call} at once, in the shapes that cost the
 * most once parsed: six of 18 MB that are one string (Jackson's buffers alone took five times that to parse it: two
 * of them ran a 192 MB heap out), four of 18 MB that are empty objects (about 30 times their size as a tree: one alone
 * would take 500 MB), and six of 1 MB of empty objects (30 MB each). The budget for all bodies together (a quarter of
 * the heap, about 46 MB) weighs each body's bytes as they arrive and its tree as it is built: what fits is served
 * (which bodies depends on the order their bytes come in), the others are answered 503 {@code relay_overloaded}, a
 * body that could never fit 413 {@code request_too_large}, and the relay lives on to serve the next ones: a string
 * of 18 MB and 1 MB of empty objects are served after the flood, 18 MB of empty objects is refused 413.
 */
class BodyFloodInASmallHeapTest {

	private static final int LARGE = 18 * 1024 * 1024;

	private static final int SMALL = 1024 * 1024;

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
			byte[] string = call(oneString(LARGE));
			byte[] objects = call(emptyObjects(LARGE));
			byte[] someObjects = call(emptyObjects(SMALL));
			List<CompletableFuture<Object>> calls = new ArrayList<>();
			List<byte[]> bodies = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				bodies.add(string);
				bodies.add(someObjects);
				if (i < 4) {
					bodies.add(objects);
				}
			}
			for (byte[] body : bodies) {
				calls.add(client.sendAsync(post(port, body), HttpResponse.BodyHandlers.ofString())
					.<Object>thenApply(response -> response)
					.exceptionally(failure -> failure));
			}
			List<String> answers = new ArrayList<>();
			for (int i = 0; i < calls.size(); i++) {
				Object outcome = calls.get(i).get(2, TimeUnit.MINUTES);
				String shape = bodies.get(i) == string ? "string" : bodies.get(i) == objects ? "objects" : "some objects";
				if (outcome instanceof HttpResponse<?> response) {
					String reason = response.statusCode() == 200 ? "-"
							: RawHttp.json((String) response.body()).at("/error/data/reason").asText();
					answers.add(shape + " " + response.statusCode() + " " + reason);
				}
				else {
					answers.add(shape + " " + outcome);
				}
			}
			String output = Files.readString(log);
			assertThat(output).as("the relay's output").doesNotContain("OutOfMemoryError");
			assertThat(relay.isAlive()).as("the relay lives (an exhausted heap would have ended it)").isTrue();
			assertThat(answers).as("every call is answered: 200, 503 past the budget, 413 for what could never fit")
				.allMatch(answer -> answer.endsWith(" 200 -") || answer.endsWith(" 503 relay_overloaded")
						|| answer.endsWith(" 413 request_too_large"))
				.anyMatch(answer -> answer.endsWith(" 503 relay_overloaded"));
			assertThat(answers).filteredOn(answer -> answer.startsWith("objects "))
				.as("18 MB of empty objects, some 500 MB as a tree, is never served: refused as it arrives, or once "
						+ "its tree passes what one request may hold")
				.allMatch(answer -> answer.endsWith(" 503 relay_overloaded") || answer.endsWith(" 413 request_too_large"));

			for (byte[] body : List.of(string, someObjects)) {
				HttpResponse<String> after = client.send(post(port, body), HttpResponse.BodyHandlers.ofString());
				assertThat(after.statusCode()).as("after the flood, a large body is served again: %s", after.body())
					.isEqualTo(200);
			}
			HttpResponse<String> alone = client.send(post(port, objects), HttpResponse.BodyHandlers.ofString());
			assertThat(alone.statusCode()).as("18 MB of empty objects alone: never fits, so not to be sent again")
				.isEqualTo(413);
			assertThat(RawHttp.json(alone.body()).at("/error/message").asText())
				.startsWith("The request body, parsed, takes more memory (over ");
		}
		finally {
			relay.destroy();
			if (!relay.waitFor(30, TimeUnit.SECONDS)) {
				relay.destroyForcibly();
			}
			upstream.disposeNow();
		}
	}

	/** A {@code tools/call} whose arguments are {@code arguments}. */
	private static byte[] call(String arguments) {
		return ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"store\",\"arguments\":"
				+ arguments + "}}").getBytes(StandardCharsets.UTF_8);
	}

	/** Arguments of about {@code size} bytes that are one string: a document, base64. */
	private static String oneString(int size) {
		return "{\"document\":\"" + "QUJD".repeat(size / 4) + "\"}";
	}

	/** Arguments of about {@code size} bytes that are empty objects: 3 bytes of text, some 80 bytes of tree each. */
	private static String emptyObjects(int size) {
		StringBuilder objects = new StringBuilder(size + 32).append("{\"rows\":[{}");
		while (objects.length() < size) {
			objects.append(",{}");
		}
		return objects.append("]}").toString();
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
