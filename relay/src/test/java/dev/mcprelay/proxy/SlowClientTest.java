package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
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
 * small receive buffer. A client that stops reading is judged on {@code scripted-stalled-client} (1 s streaming-idle,
 * 2 s client-write); a pause on {@code scripted-patient-client}, whose 1 s idle bound a 3 s pause crosses on any
 * machine and whose 30 s client-write bound it stays far below, however long a loaded machine takes to resume the
 * reading thread. Neither bounds the answer's head at 1 s, which a busy machine crosses, not the relay. The test reads
 * until the relay ends the response, however slowly a loaded machine moves 20 MB: only a silence of a minute fails it.
 */
class SlowClientTest extends RelayIntegrationTest {

	private static final int EVENTS = 20000;

	private static final String PADDING = "x".repeat(1000);

	/** A read that waits this long for a byte fails the test: the relay hung, whatever the machine's load. */
	private static final int SILENCE_GUARD_MILLIS = 60_000;

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
		try (Socket socket = openStream("scripted-patient-client")) {
			InputStream in = socket.getInputStream();
			byte[] first = in.readNBytes(16 * 1024);
			Thread.sleep(3000); // three times streaming-idle (1 s), a tenth of client-write (30 s)
			String rest = new String(readToEnd(in), StandardCharsets.UTF_8);
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
		try (Socket socket = openStream("scripted-stalled-client")) {
			InputStream in = socket.getInputStream();
			in.readNBytes(16 * 1024);
			// Reads nothing more until the relay has given up on the client (client-write, 2s, once the sockets are
			// full): waiting for the relay's own count, not a fixed time, so a loaded machine that fills them slowly
			// does not make the client look like one that kept reading.
			await().atMost(Duration.ofSeconds(30)).untilAsserted(
					() -> assertThat(stalls()).as("counted as a stalled client").isEqualTo(stallsBefore + 1));
			byte[] rest = readToEnd(in);

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
		Counter counter = registry.find(RelayMeters.CLIENT_STALLS).tag(RelayMeters.SERVER, "scripted-stalled-client").counter();
		return counter == null ? 0 : counter.count();
	}

	/** A POST whose answer streams, over a socket that holds little, read by the test at its own pace. */
	private Socket openStream(String server) throws IOException {
		Socket socket = new Socket();
		socket.setReceiveBufferSize(64 * 1024);
		socket.setSoTimeout(SILENCE_GUARD_MILLIS);
		socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
		String body = RawHttp.toolsCall(1, "burst");
		OutputStream out = socket.getOutputStream();
		out.write(("POST /mcp/" + server + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
				+ "Accept: application/json, text/event-stream\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
			.getBytes(StandardCharsets.UTF_8));
		out.flush();
		return socket;
	}

	/**
	 * Everything until the relay ends the response (its last chunk) or closes the connection; a read that meets the
	 * silence guard throws, so a relay that neither sends nor ends fails the test instead of passing as cut off.
	 */
	private static byte[] readToEnd(InputStream in) throws IOException {
		ByteArrayOutputStream all = new ByteArrayOutputStream();
		byte[] buffer = new byte[64 * 1024];
		String tail = "";
		while (true) {
			int read;
			try {
				read = in.read(buffer);
			}
			catch (java.net.SocketException closed) {
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
