package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RelayIntegrationTest;
import dev.mcprelay.testsupport.TestUpstreams;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A client that reads slowly is not the upstream's silence, and a client that stops reading is bounded by its own
 * limit, whether the relay streams SSE event by event or passes a body through untouched. The scripted upstream
 * answers a call with a burst of progress events (about 20 MB, far more than the
 * relay reads ahead and the sockets hold) and then the result, all at once; the client reads through a socket with a
 * small receive buffer. {@code scripted} has a 1s streaming-idle bound and a 2s client-write bound.
 */
class SlowClientTest extends RelayIntegrationTest {

	private static final int EVENTS = 20000;

	private static final String PADDING = "x".repeat(1000);

	@Autowired
	MeterRegistry registry;

	/**
	 * The burst, as an SSE stream or as a plain body the relay passes through untouched: a text page under a 500 (a
	 * 2xx to a request is read only as JSON or an event stream, and any other is not relayed at all).
	 */
	private static void burstOfEventsThenTheResult(String contentType) {
		TestUpstreams.SCRIPTED.clear();
		TestUpstreams.SCRIPTED.script((request, response) -> response
			.status(contentType.equals("text/plain") ? 500 : 200)
			.header("Content-Type", contentType)
			.sendString(Flux.range(0, EVENTS)
				.map(i -> "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,"
						+ "\"progress\":" + i + ",\"message\":\"" + PADDING + "\"}}\n\n")
				.concatWith(Mono.just("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n"))));
	}

	@ParameterizedTest(name = "{0}: a client that pauses longer than the idle bound is not blamed on the upstream")
	@ValueSource(strings = { "text/event-stream", "text/plain" })
	void aClientThatPausesLongerThanTheIdleBoundIsNotBlamedOnTheUpstream(String contentType) throws Exception {
		burstOfEventsThenTheResult(contentType);
		int logsFrom = CapturedLogs.all().size();
		try (Socket socket = openStream()) {
			InputStream in = socket.getInputStream();
			byte[] first = in.readNBytes(16 * 1024);
			Thread.sleep(1500); // longer than streaming-idle (1s), shorter than client-write (2s)
			String rest = new String(readToEnd(in, Duration.ofSeconds(20)), StandardCharsets.UTF_8);
			String all = new String(first, StandardCharsets.UTF_8) + rest;

			assertThat(all).as("the upstream's result arrived, after every event")
				.contains("\"id\":1,\"result\"")
				.doesNotContain("upstream_stream_idle");
		}
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(logsSince(logsFrom))
			.as("the access log does not blame the upstream")
			.anyMatch(line -> line.contains("rpc_method=tools/call") && line.contains("outcome=forwarded"))
			.noneMatch(line -> line.contains("upstream_stream_idle")));
	}

	@ParameterizedTest(name = "{0}: a client that stops reading is closed with its own reason, the upstream let go")
	@ValueSource(strings = { "text/event-stream", "text/plain" })
	void aClientThatStopsReadingIsClosedWithItsOwnReasonAndTheUpstreamLetGo(String contentType) throws Exception {
		burstOfEventsThenTheResult(contentType);
		int logsFrom = CapturedLogs.all().size();
		double stallsBefore = stalls();
		int upstreamClosedBefore = TestUpstreams.SCRIPTED.closedConnections();
		try (Socket socket = openStream()) {
			InputStream in = socket.getInputStream();
			in.readNBytes(16 * 1024);
			// Reads nothing more until the relay has given up on the client (client-write, 2s, once the sockets are
			// full): waiting for the relay's own count, not a fixed time, so a loaded machine that fills them slowly
			// does not make the client look like one that kept reading.
			await().atMost(Duration.ofSeconds(30)).untilAsserted(
					() -> assertThat(stalls()).as("counted as a stalled client").isEqualTo(stallsBefore + 1));
			byte[] rest = readToEnd(in, Duration.ofSeconds(10));

			assertThat(new String(rest, StandardCharsets.UTF_8)).as("the stream was cut off, never finished")
				.doesNotContain("\"id\":1,\"result\"");
		}
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(stalls()).as("counted as a stalled client").isEqualTo(stallsBefore + 1);
			assertThat(TestUpstreams.SCRIPTED.closedConnections()).as("the upstream exchange was let go")
				.isGreaterThan(upstreamClosedBefore);
			assertThat(logsSince(logsFrom)).as("the client's own reason, not the upstream's fault")
				.anyMatch(line -> line.contains("outcome=client_error") && line.contains("reason=client_write_timeout"))
				.noneMatch(line -> line.contains("upstream_stream_idle"))
				.noneMatch(line -> line.startsWith("ERROR"));
		});
	}

	private static java.util.List<String> logsSince(int from) {
		java.util.List<String> all = CapturedLogs.all();
		return all.subList(Math.min(from, all.size()), all.size());
	}

	private double stalls() {
		Counter counter = registry.find(RelayMeters.CLIENT_STALLS).tag(RelayMeters.SERVER, "scripted").counter();
		return counter == null ? 0 : counter.count();
	}

	/** A POST whose answer streams, over a socket that holds little, read by the test at its own pace. */
	private Socket openStream() throws IOException {
		Socket socket = new Socket();
		socket.setReceiveBufferSize(64 * 1024);
		socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
		String body = RawHttp.toolsCall(1, "burst");
		OutputStream out = socket.getOutputStream();
		out.write(("POST /mcp/scripted HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
				+ "Accept: application/json, text/event-stream\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
			.getBytes(StandardCharsets.UTF_8));
		out.flush();
		return socket;
	}

	/** Everything until the relay ends the response (its last chunk) or closes the connection. */
	private static byte[] readToEnd(InputStream in, Duration limit) throws IOException {
		ByteArrayOutputStream all = new ByteArrayOutputStream();
		long deadline = System.nanoTime() + limit.toNanos();
		byte[] buffer = new byte[64 * 1024];
		String tail = "";
		while (System.nanoTime() < deadline) {
			int read;
			try {
				read = in.read(buffer);
			}
			catch (SocketTimeoutException | java.net.SocketException closed) {
				break;
			}
			if (read < 0) {
				break;
			}
			all.write(buffer, 0, read);
			String recent = tail + new String(buffer, Math.max(0, read - 16), Math.min(read, 16), StandardCharsets.ISO_8859_1);
			if (recent.endsWith("\r\n0\r\n\r\n")) {
				break;
			}
			tail = recent.substring(Math.max(0, recent.length() - 16));
		}
		return all.toByteArray();
	}

}
