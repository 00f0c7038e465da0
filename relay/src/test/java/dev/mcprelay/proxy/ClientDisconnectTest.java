package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RelayIntegrationTest;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Flux;

/**
 * A client that resets or half-closes its connection is its own doing: logged at most at INFO with no stack trace,
 * recorded as {@code client_error} ({@code client_disconnected}) when nothing was decided yet, and never an ERROR that
 * any client could use to flood the log.
 */
class ClientDisconnectTest extends RelayIntegrationTest {

	@Test
	void aClientThatHalfClosesInTheMiddleOfItsBodyIsNoError() throws Exception {
		int from = CapturedLogs.all().size();
		try (Socket socket = new Socket("127.0.0.1", port)) {
			socket.getOutputStream().write(("POST /mcp/scripted HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
					+ "Content-Length: 400\r\n\r\n{\"jsonrpc\":\"2.0\",").getBytes(StandardCharsets.UTF_8));
			socket.shutdownOutput();
			RawHttp.readAll(socket.getInputStream());
		}

		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(since(from))
			.anyMatch(line -> line.contains("mcp.relay.access") && line.contains("outcome=client_error")
					&& line.contains("reason=client_disconnected")));
		assertThat(since(from)).as("nothing above INFO, no stack trace")
			.noneMatch(line -> line.startsWith("ERROR") || line.startsWith("WARN"))
			.noneMatch(line -> line.contains("\tat "));
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing of it was forwarded")
			.noneMatch(seen -> seen.body().startsWith("{\"jsonrpc\":\"2.0\",") && seen.body().length() < 20);
	}

	@Test
	void aClientThatResetsAStreamIsNoError() throws Exception {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "text/event-stream")
			.sendString(Flux.interval(Duration.ofMillis(100)).take(20).map(i -> ": tick\n\n")));
		int from = CapturedLogs.all().size();
		try (Socket socket = new Socket("127.0.0.1", port)) {
			sendToolsCall(socket);
			socket.getInputStream().read(new byte[512]);
			socket.setSoLinger(true, 0); // close with a reset
		}

		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(since(from))
			.anyMatch(line -> line.contains("mcp.relay.access") && line.contains("rpc_method=tools/call")));
		Thread.sleep(300);
		assertThat(since(from)).as("nothing above INFO, no stack trace")
			.noneMatch(line -> line.startsWith("ERROR") || line.startsWith("WARN"))
			.noneMatch(line -> line.contains("\tat "));
	}

	@org.junit.jupiter.params.ParameterizedTest(name = "a client that leaves ({0}) while the upstream works on a JSON answer is no upstream failure")
	@org.junit.jupiter.params.provider.ValueSource(strings = { "half-close", "reset" })
	void aClientThatLeavesBeforeItsJsonAnswerIsNoUpstreamFailure(String how) throws Exception {
		TestUpstreams.SCRIPTED.script((request, response) -> request.receive().then()
			.then(reactor.core.publisher.Mono.delay(Duration.ofMillis(300)))
			.then(response.status(200).header("Content-Type", "application/json")
				.sendString(reactor.core.publisher.Mono.just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")).then()));
		int from = CapturedLogs.all().size();
		try (Socket socket = new Socket("127.0.0.1", port)) {
			String body = sendToolsCall(socket);
			await().atMost(Duration.ofSeconds(5)).until(() -> TestUpstreams.SCRIPTED.seen().stream()
				.anyMatch(seen -> seen.body().equals(body)));
			if (how.equals("reset")) {
				socket.setSoLinger(true, 0);
			}
			else {
				socket.shutdownOutput();
			}
		}

		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(since(from))
			.anyMatch(line -> line.contains("mcp.relay.access") && line.contains("rpc_method=tools/call")));
		Thread.sleep(300);
		assertThat(since(from)).as("the client's leaving, not the upstream's failure")
			.filteredOn(line -> line.contains("mcp.relay.access"))
			.singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
			.doesNotContain("outcome=failed")
			.doesNotContain("upstream_failed");
		assertThat(since(from)).as("nothing above INFO, no stack trace")
			.noneMatch(line -> line.startsWith("ERROR") || line.startsWith("WARN"))
			.noneMatch(line -> line.contains("\tat "));
	}

	@org.junit.jupiter.params.ParameterizedTest(name = "a body malformed on the wire ({0}) is refused and never forwarded")
	@org.junit.jupiter.params.provider.ValueSource(strings = { "0\r\n\u0000bad\r\n\r\n", "0\r\n: no-name\r\n\r\n",
			"zz\r\n", "5;\u0001ext\r\nhello\r\n0\r\n\r\n" })
	void aBodyMalformedOnTheWireIsNeverForwarded(String tail) throws Exception {
		TestUpstreams.SCRIPTED.clear();
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(202).send());
		int from = CapturedLogs.all().size();
		String body = RawHttp.toolsCall(1, "echo");
		String answer;
		try (Socket socket = new Socket("127.0.0.1", port)) {
			socket.setSoTimeout(5000);
			socket.getOutputStream().write(("POST /mcp/scripted HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
					+ "Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
					+ Integer.toHexString(body.length()) + "\r\n" + body + "\r\n" + tail).getBytes(StandardCharsets.ISO_8859_1));
			answer = RawHttp.readAll(socket.getInputStream());
		}

		assertThat(answer).startsWith("HTTP/1.1 400");
		Thread.sleep(300);
		assertThat(TestUpstreams.SCRIPTED.seen()).as("what arrived before the malformed part was not forwarded").isEmpty();
		assertThat(since(from)).as("nothing above INFO").noneMatch(line -> line.startsWith("ERROR") || line.startsWith("WARN"));
	}

	/** Writes a whole tools/call POST for the scripted server on {@code socket}; returns its body. */
	private static String sendToolsCall(Socket socket) throws java.io.IOException {
		String body = RawHttp.toolsCall(1, "echo");
		socket.getOutputStream().write(("POST /mcp/scripted HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
				+ "Accept: application/json, text/event-stream\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
			.getBytes(StandardCharsets.UTF_8));
		return body;
	}

	private static List<String> since(int from) {
		List<String> all = CapturedLogs.all();
		return all.subList(Math.min(from, all.size()), all.size());
	}

}
