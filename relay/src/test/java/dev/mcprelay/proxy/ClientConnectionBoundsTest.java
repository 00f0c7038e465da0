package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RawSocketHttp;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * A client connection that sends an incomplete request, or none, is closed after its bound
 * ({@code client-connections.request-read-timeout} 1s, {@code idle-timeout} 2s here), and nothing is forwarded (a
 * body cut short is answered first, 408 {@code request_read_timeout}, the client's error); a stream that lasts longer
 * than both is not cut.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "mcp-relay.client-connections.request-read-timeout=1s",
				"mcp-relay.client-connections.idle-timeout=2s" })
class ClientConnectionBoundsTest {

	@LocalServerPort
	int port;

	@Autowired
	io.micrometer.core.instrument.MeterRegistry meters;

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.scripted.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
		// the same upstream under a name of its own, whose counters no other test's request (recorded as its connection
		// closes, perhaps after the next test began) can move
		registry.add("mcp-relay.servers.stalled.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
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

	/**
	 * A client that sends its headers and half its body, then stalls, is the client's fault: answered 408 with a
	 * JSON-RPC error ({@code request_read_timeout}), logged and counted as a client error, never as a failure of the
	 * relay (500 {@code internal_error}, which feeds the failure alerts).
	 */
	@Test
	void aBodyCutByTheReadTimeoutIsTheClientsError() throws Exception {
		TestUpstreams.SCRIPTED.clear();
		int from = CapturedLogs.all().size();
		double failedBefore = count("failed");
		double clientErrorsBefore = count("client_error");
		String half = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",";
		List<RawSocketHttp.Response> responses = RawSocketHttp.exchange(port, "POST /mcp/stalled HTTP/1.1\r\n"
				+ "Host: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: " + RawHttp.ACCEPT_BOTH
				+ "\r\nX-Request-Id: stalled-body\r\nContent-Length: 500\r\n\r\n" + half);

		assertThat(responses).as("one answer, then the relay closes the connection").hasSize(1);
		RawSocketHttp.Response response = responses.get(0);
		assertThat(response.status()).isEqualTo(408);
		JsonNode error = RawHttp.json(response.body()).get("error");
		assertThat(error.path("code").asInt()).isEqualTo(-32600);
		assertThat(error.at("/data/reason").asText()).isEqualTo("request_read_timeout");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> CapturedLogs.since(from).stream().anyMatch(line -> line.contains(" request_id=stalled-body ")));
		List<String> logged = CapturedLogs.since(from);
		assertThat(logged).filteredOn(line -> line.contains(" request_id=stalled-body "))
			.singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
			.contains(" status=408 ", " outcome=client_error ", " reason=request_read_timeout ");
		assertThat(logged).as("no error logged: the client stalled, the relay did not fail")
			.noneMatch(line -> line.startsWith("ERROR ") || line.startsWith("WARN "));
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(count("client_error") - clientErrorsBefore).as("counted as the client's error")
				.isEqualTo(1));
		assertThat(count("failed")).as("not as a failure").isEqualTo(failedBefore);
	}

	/** Requests to the server {@code stalled} counted with {@code outcome}: only that test's requests go there. */
	private double count(String outcome) {
		return meters.find(RelayMeters.REQUESTS)
			.tag(RelayMeters.SERVER, "stalled")
			.tag("outcome", outcome)
			.counters()
			.stream()
			.mapToDouble(io.micrometer.core.instrument.Counter::count)
			.sum();
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
