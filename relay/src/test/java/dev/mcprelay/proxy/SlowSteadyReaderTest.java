package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A client that reads its stream slowly but steadily is never cut as one that stopped reading
 * ({@code timeouts.client-write}, here 2 s): its clock measures what it takes, not how often the relay asks its upstream
 * for more, nor what the kernel takes ahead of it. The reading is paced in bytes, each pause far shorter than the bound:
 * <ul>
 * <li>an event of 16 MB, then 2 MB of smaller ones, then the result, read 64 KB per 25 ms pause: the relay holds all it
 * may read ahead ({@code max-held-bytes} 1 MB) and asks its upstream for nothing while the client takes the big event,
 * which takes the client at least 192 pauses (4.8 s) beyond what the sockets hold. Cut at 5 s while the relay timed
 * the client by its requests upstream, and while it handed the event to the connection as one buffer;</li>
 * <li>a stream of 20 KB events read 16 KB per 50 ms pause, 3 MB of it: cut at 3 s while the client's socket took
 * megabytes ahead of the client and said it had room again only once a third of them went out.</li>
 * </ul>
 */
class SlowSteadyReaderTest {

	private static final int READ = 64 * 1024;

	private static final long PAUSE_MILLIS = 25;

	private static final int SLOW_READ = 16 * 1024;

	private static final long SLOW_PAUSE_MILLIS = 50;

	private static final long SLOW_TOTAL = 3L * 1024 * 1024;

	private static ConfigurableApplicationContext relay;

	@BeforeAll
	static void startRelay() {
		relay = new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class)
			.properties("server.port=0", "mcp-relay.servers.big.url=" + TestUpstreams.SCRIPTED.url("/mcp"),
					"mcp-relay.servers.big.max-buffered-body=32MB", "mcp-relay.servers.big.timeouts.client-write=2s",
					"mcp-relay.servers.big.timeouts.streaming-idle=10s", "mcp-relay.sessions.max-held-bytes=1MB")
			.run();
	}

	@AfterAll
	static void stopRelay() {
		relay.close();
	}

	@Test
	void aClientThatTakesItsStreamSlowlyButSteadilyGetsAllOfIt() throws Exception {
		String big = "x".repeat(16 * 1024 * 1024);
		String small = "y".repeat(64 * 1024);
		TestUpstreams.SCRIPTED.clear();
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "text/event-stream")
			.sendString(Flux.concat(Mono.just(progress(0, big)), Flux.range(1, 32).map(i -> progress(i, small)),
					Mono.just("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n"))));
		int logMark = CapturedLogs.all().size();
		int port = ((WebServerApplicationContext) relay).getWebServer().getPort();

		String stream;
		try (Socket client = new Socket()) {
			client.setReceiveBufferSize(READ);
			client.setSoTimeout(30_000);
			client.connect(new InetSocketAddress("127.0.0.1", port), 5000);
			String body = RawHttp.toolsCall(1, "slow");
			OutputStream out = client.getOutputStream();
			out.write(("POST /mcp/big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: "
					+ RawHttp.ACCEPT_BOTH + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
				.getBytes(StandardCharsets.UTF_8));
			out.flush();
			stream = readSteadily(client.getInputStream());
		}

		String line = awaitAccessLine(logMark);
		assertThat(line).as("the access line").contains("outcome=forwarded").doesNotContain("client_write_timeout");
		assertThat(stream.contains("\"progress\":32") && stream.contains("\"id\":1,\"result\""))
			.as("every event, then the result, in the %d bytes the client got", stream.length())
			.isTrue();
	}

	/**
	 * A JSON answer has the client's clock too (a client that reads nothing of it is cut, {@link StalledJsonReaderTest}),
	 * by the same rule: 8 MB read 64 KB per 25 ms pause takes the client at least 3.2 s, past the bound, and is not cut.
	 */
	@Test
	void aClientThatTakesALargeJsonAnswerSlowlyButSteadilyGetsAllOfIt() throws Exception {
		String answer = "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""
				+ "j".repeat(8 * 1024 * 1024) + "\"}]}}";
		TestUpstreams.SCRIPTED.clear();
		TestUpstreams.SCRIPTED.script((request, response) -> request.receive()
			.then(response.status(200).header("Content-Type", "application/json").sendString(Mono.just(answer)).then()));
		double stallsBefore = stalls();
		int port = ((WebServerApplicationContext) relay).getWebServer().getPort();

		String received;
		try (Socket client = new Socket()) {
			client.setReceiveBufferSize(READ);
			client.setSoTimeout(30_000);
			client.connect(new InetSocketAddress("127.0.0.1", port), 5000);
			String body = RawHttp.toolsCall(3, "json");
			OutputStream out = client.getOutputStream();
			out.write(("POST /mcp/big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: "
					+ RawHttp.ACCEPT_BOTH + "\r\nConnection: close\r\nContent-Length: " + body.length() + "\r\n\r\n"
					+ body).getBytes(StandardCharsets.UTF_8));
			out.flush();
			received = readSteadily(client.getInputStream());
		}

		assertThat(stalls()).as("no stall counted").isEqualTo(stallsBefore);
		assertThat(received).as("the whole answer, in the %d bytes the client got", received.length())
			.startsWith("HTTP/1.1 200")
			.endsWith(answer);
	}

	@Test
	void aClientReadingFarSlowerThanTheSocketsCanHoldIsNotCutWhileItReads() throws Exception {
		String event = progress(0, "z".repeat(20 * 1024));
		TestUpstreams.SCRIPTED.clear();
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "text/event-stream")
			.sendString(Flux.range(0, 2000).map(i -> event)));
		double stallsBefore = stalls();
		int port = ((WebServerApplicationContext) relay).getWebServer().getPort();

		long read = 0;
		try (Socket client = new Socket()) {
			client.setReceiveBufferSize(16 * 1024);
			client.setSoTimeout(30_000);
			client.connect(new InetSocketAddress("127.0.0.1", port), 5000);
			String body = RawHttp.toolsCall(2, "slower");
			OutputStream out = client.getOutputStream();
			out.write(("POST /mcp/big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: "
					+ RawHttp.ACCEPT_BOTH + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
				.getBytes(StandardCharsets.UTF_8));
			out.flush();
			InputStream in = client.getInputStream();
			byte[] buffer = new byte[SLOW_READ];
			while (read < SLOW_TOTAL) {
				int got = in.read(buffer);
				if (got < 0) {
					break;
				}
				read += got;
				Thread.sleep(SLOW_PAUSE_MILLIS);
			}
			assertThat(stalls()).as("no stall counted while the client read %d bytes", read).isEqualTo(stallsBefore);
		}
		assertThat(read).as("the relay never closed the stream on the client").isGreaterThanOrEqualTo(SLOW_TOTAL);
	}

	private static double stalls() {
		io.micrometer.core.instrument.Counter counter = relay.getBean(io.micrometer.core.instrument.MeterRegistry.class)
			.find(dev.mcprelay.metrics.RelayMeters.CLIENT_STALLS)
			.tag(dev.mcprelay.metrics.RelayMeters.SERVER, "big")
			.counter();
		return counter == null ? 0 : counter.count();
	}

	private static String progress(int i, String message) {
		return "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,"
				+ "\"progress\":" + i + ",\"message\":\"" + message + "\"}}\n\n";
	}

	/**
	 * Reads at most {@link #READ} bytes, pauses, and again, until the response ends (its last chunk) or the relay closes
	 * the connection.
	 */
	private static String readSteadily(InputStream in) throws Exception {
		ByteArrayOutputStream all = new ByteArrayOutputStream();
		byte[] buffer = new byte[READ];
		String tail = "";
		while (true) {
			int read = in.read(buffer, 0, READ);
			if (read < 0) {
				return all.toString(StandardCharsets.ISO_8859_1);
			}
			all.write(buffer, 0, read);
			tail = (tail + new String(buffer, Math.max(0, read - 16), Math.min(read, 16), StandardCharsets.ISO_8859_1));
			tail = tail.substring(Math.max(0, tail.length() - 16));
			if (tail.endsWith("\r\n0\r\n\r\n")) {
				return all.toString(StandardCharsets.ISO_8859_1);
			}
			Thread.sleep(PAUSE_MILLIS);
		}
	}

	private static String awaitAccessLine(int logMark) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			for (String line : CapturedLogs.since(logMark)) {
				if (line.contains("mcp.relay.access") && line.contains("rpc_method=tools/call")) {
					return line;
				}
			}
			Thread.sleep(20);
		}
		throw new AssertionError("waited 30s in vain for the call's access-log line");
	}

}
