package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import io.netty.util.internal.PlatformDependent;
import reactor.core.publisher.Mono;

/**
 * A client that reads a large JSON answer slowly holds at most {@code sessions.max-held-bytes} of it off the heap
 * (1MB here), not the whole answer: handed to the connection as one heap buffer, the answer (24 MB here) was copied
 * whole into a direct buffer, held until the client took its last byte, so that twelve slow readers of 40 MB answers
 * took a relay past its container's memory. The client reads the head, then nothing until the relay's direct memory
 * has grown by what the window lets it hand over, then the rest, which must be the answer, whole.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "mcp-relay.sessions.max-held-bytes=1MB" })
class SlowJsonReaderTest {

	private static final int TEXT = 24 * 1024 * 1024;

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.big.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
		registry.add("mcp-relay.servers.big.max-buffered-body", () -> "32MB");
		registry.add("mcp-relay.servers.big.timeouts.non-streaming", () -> "30s");
		registry.add("mcp-relay.max-buffered-bodies", () -> "128MB");
	}

	@Test
	void aSlowReaderOfALargeJsonAnswerHoldsTheWindowOffTheHeapNotTheAnswer() throws Exception {
		String answer = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""
				+ "x".repeat(TEXT) + "\"}]}}";
		TestUpstreams.SCRIPTED.clear();
		TestUpstreams.SCRIPTED.script((request, response) -> request.receive()
			.then(response.status(200).header("Content-Type", "application/json").sendString(Mono.just(answer)).then()));
		long before = directMemoryUsed();
		try (Socket socket = new Socket()) {
			socket.setReceiveBufferSize(64 * 1024);
			socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
			socket.setSoTimeout(30_000);
			String body = RawHttp.toolsCall(1, "big");
			OutputStream out = socket.getOutputStream();
			out.write(("POST /mcp/big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: "
					+ RawHttp.ACCEPT_BOTH + "\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\n\r\n"
					+ body).getBytes(StandardCharsets.UTF_8));
			out.flush();
			InputStream in = socket.getInputStream();
			byte[] head = in.readNBytes(1024);
			// the relay is writing: nothing more is read until it has handed over what the window lets it (1MB)
			long peak = 0;
			long deadline = System.nanoTime() + 30_000_000_000L;
			while (peak - before < 900 * 1024 && System.nanoTime() < deadline) {
				peak = Math.max(peak, directMemoryUsed());
				Thread.onSpinWait();
			}
			assertThat(peak - before).as("the relay handed over the window's worth while the client read nothing")
				.isGreaterThanOrEqualTo(900 * 1024);
			ByteArrayOutputStream rest = new ByteArrayOutputStream();
			rest.write(head);
			byte[] buffer = new byte[16 * 1024];
			for (int read; (read = in.read(buffer)) >= 0;) {
				rest.write(buffer, 0, read);
				peak = Math.max(peak, directMemoryUsed());
			}
			String response = rest.toString(StandardCharsets.UTF_8);

			assertThat(peak - before).as("direct memory held for the slow reader: the window, not the 24 MB answer")
				.isLessThan(8L * 1024 * 1024);
			assertThat(response).startsWith("HTTP/1.1 200").endsWith(answer);
		}
	}

	/** Direct memory in use: the JDK's direct buffers, and Netty's own when it counts them apart. */
	private static long directMemoryUsed() {
		long jdk = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)
			.stream()
			.filter(pool -> "direct".equals(pool.getName()))
			.mapToLong(BufferPoolMXBean::getMemoryUsed)
			.sum();
		return jdk + Math.max(0, PlatformDependent.usedDirectMemory());
	}

}
