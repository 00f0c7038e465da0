package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * A client's GET stream of a session (the SSE stream the client opens for what its server sends it), its messages read
 * as they come on a thread of its own: for tests that follow what reaches a client's GET wherever it landed.
 */
final class SessionGetStream implements AutoCloseable {

	private final HttpResponse<InputStream> response;

	private final BlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();

	private final CountDownLatch ended = new CountDownLatch(1);

	/** Opens the GET of {@code session} on server (or virtual server) {@code server} through {@code http}. */
	SessionGetStream(RawHttp http, String server, McpSession session) {
		response = http.open(http.request(server).header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.GET());
		Thread reader = new Thread(this::read, "replica-events");
		reader.setDaemon(true);
		reader.start();
	}

	int status() {
		return response.statusCode();
	}

	private void read() {
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = lines.readLine()) != null) {
				if (line.startsWith("data:") && line.length() > 5) {
					messages.add(RawHttp.json(line.substring(5).strip()));
				}
			}
		}
		catch (IOException dropped) {
			// closed by the test
		}
		finally {
			ended.countDown();
		}
	}

	/** The next message that {@code wanted}, within 30 s. */
	JsonNode next(Predicate<JsonNode> wanted) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (true) {
			JsonNode message = messages.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			assertThat(message).as("a message that the test waits for, within 30 s").isNotNull();
			if (wanted.test(message)) {
				return message;
			}
		}
	}

	/** Waits for the relay to end the stream. */
	void awaitEnd() throws InterruptedException {
		assertThat(ended.await(30, TimeUnit.SECONDS)).as("the stream ended").isTrue();
	}

	@Override
	public void close() throws IOException {
		response.body().close();
	}

}
