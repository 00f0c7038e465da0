package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * A client connection that sends an incomplete request, or none, is closed after its bound
 * ({@code client-connections.request-read-timeout} 1s, {@code idle-timeout} 2s here), and nothing is forwarded; a
 * stream that lasts longer than both is not cut.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "mcp-relay.client-connections.request-read-timeout=1s",
				"mcp-relay.client-connections.idle-timeout=2s" })
class ClientConnectionBoundsTest {

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.scripted.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
	}

	@Test
	void anIncompleteRequestIsClosedAfterTheReadTimeout() throws Exception {
		TestUpstreams.SCRIPTED.clear();
		try (Socket socket = new Socket("127.0.0.1", port)) {
			socket.setSoTimeout(10_000);
			socket.getOutputStream()
				.write("POST /mcp/scripted HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\""
					.getBytes(StandardCharsets.UTF_8));
			long start = System.nanoTime();
			int read = readUntilClosed(socket.getInputStream());

			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("closed by the relay, well before 10s")
				.isLessThan(Duration.ofSeconds(8));
			assertThat(read).isGreaterThanOrEqualTo(0);
		}
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

	@Test
	void anIncompleteHeaderIsClosedToo() throws Exception {
		try (Socket socket = new Socket("127.0.0.1", port)) {
			socket.setSoTimeout(10_000);
			socket.getOutputStream().write("POST /mcp/scripted HTTP/1.1\r\nHost: 127.0".getBytes(StandardCharsets.UTF_8));
			long start = System.nanoTime();
			readUntilClosed(socket.getInputStream());

			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(8));
		}
	}

	@Test
	void aConnectionThatSendsNothingIsClosedAfterTheIdleTimeout() throws Exception {
		try (Socket socket = new Socket("127.0.0.1", port)) {
			socket.setSoTimeout(10_000);
			long start = System.nanoTime();
			readUntilClosed(socket.getInputStream());

			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(8));
		}
	}

	@Test
	void aStreamLongerThanBothBoundsIsNotCut() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "text/event-stream")
			.sendString(reactor.core.publisher.Flux.interval(Duration.ofMillis(500))
				.take(6)
				.map(i -> i < 5 ? ": keepalive\n\n" : "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")));

		String body = new RawHttp(port).send(new RawHttp(port).post("scripted", RawHttp.toolsCall(1, "echo"))).body();

		assertThat(body).as("3s of stream, past both bounds, arrived whole").contains("\"id\":1,\"result\"");
	}

	/** Reads until the relay closes the connection (or 10s pass); returns how many bytes came. */
	private static int readUntilClosed(InputStream in) throws Exception {
		int total = 0;
		byte[] buffer = new byte[1024];
		try {
			for (int read; (read = in.read(buffer)) >= 0;) {
				total += read;
			}
		}
		catch (java.net.SocketException reset) {
			// closed
		}
		return total;
	}

}
