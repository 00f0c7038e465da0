package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RawSocketHttp;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * What one client may hold of the memory budget for bodies ({@code max-buffered-bodies} 6 MB here, so one caller's
 * share is 3 MB), in front of the SDK's stateless server: a body is counted as its bytes arrive, never by the length it
 * declares, so a client that declares large bodies and sends a byte holds a byte; and a client whose bodies arrive
 * nearly whole and stop one byte short of their end holds at most its share, so another caller's large call is still
 * served. Its refusals are 503 {@code relay_overloaded}, logged with outcome {@code overloaded}: the relay's doing, not
 * the upstream's failure.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "mcp-relay.max-buffered-bodies=6MB", "mcp-relay.security.mode=api-key" })
class BodyBudgetSharesTest {

	private static final String GREEDY_KEY = "greedy-key-4c1d9e7f2a6b3058";

	private static final String OTHER_KEY = "other-key-8e2f1a7c5d3b9046";

	/** A body each stalled request of the greedy client sends all of but its last byte. */
	private static final int STALLED_BODY = 900_000;

	@LocalServerPort
	int port;

	@Autowired
	BufferedBodies bodies;

	private final List<Socket> stalled = new ArrayList<>();

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.api-keys[0].client", () -> "greedy");
		registry.add("mcp-relay.security.api-keys[0].key-sha256", () -> sha256(GREEDY_KEY));
		registry.add("mcp-relay.security.api-keys[0].servers[0]", () -> "*");
		registry.add("mcp-relay.security.api-keys[1].client", () -> "other");
		registry.add("mcp-relay.security.api-keys[1].key-sha256", () -> sha256(OTHER_KEY));
		registry.add("mcp-relay.security.api-keys[1].servers[0]", () -> "*");
		registry.add("mcp-relay.servers.sdk-json.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.sdk-json.max-buffered-body", () -> "1MB");
	}

	@AfterEach
	void closeStalledRequests() throws IOException {
		for (Socket socket : stalled) {
			socket.close();
		}
		stalled.clear();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(bodies.held())
			.as("every exchange ended with its connection: nothing held").isZero());
	}

	@Test
	void aBodyThatDeclaresItsLengthHoldsOnlyTheBytesThatArrived() throws Exception {
		for (int i = 0; i < 6; i++) {
			Socket socket = open(GREEDY_KEY, 1_000_000);
			socket.getOutputStream().write('[');
			socket.getOutputStream().flush();
		}
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(bodies.held())
			.as("six requests that declared 1,000,000 bytes and sent one hold six bytes, and room to parse them")
			.isEqualTo(12));

		assertThat(echo(OTHER_KEY, 1, 850_000).statusCode()).as("another caller's large call is served").isEqualTo(200);
		assertThat(echo(GREEDY_KEY, 2, 850_000).statusCode()).as("and so is the slow client's own").isEqualTo(200);
	}

	@Test
	void aClientWhoseBodiesStallShortOfTheirEndHoldsAtMostItsShare() throws Exception {
		int mark = CapturedLogs.all().size();
		List<CompletableFuture<RawSocketHttp.Response>> answers = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			Socket socket = open(GREEDY_KEY, STALLED_BODY);
			byte[] body = echoCall(100 + i, STALLED_BODY).getBytes(StandardCharsets.UTF_8);
			socket.getOutputStream().write(body, 0, body.length - 1);
			socket.getOutputStream().flush();
			answers.add(answer(socket));
		}
		// the bodies arrive at once: which of them the share refuses depends on the order their bytes come in
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			long refused = answers.stream().filter(CompletableFuture::isDone).count();
			assertThat(refused).as("requests past the share of 3 MB answered at once (a body of 900 KB is counted "
					+ "twice while it is read: one fits)").isGreaterThanOrEqualTo(4);
			assertThat(bodies.heldBy("API_KEY:greedy")).as("every other body held, one byte short, with room to parse it")
				.isGreaterThanOrEqualTo((answers.size() - refused) * 2 * (STALLED_BODY - 1L));
		});
		assertThat(bodies.heldBy("API_KEY:greedy")).as("the greedy client holds at most its share")
			.isLessThanOrEqualTo(3L * 1024 * 1024);
		long refused = 0;
		for (CompletableFuture<RawSocketHttp.Response> answer : answers) {
			if (answer.isDone()) {
				refused++;
				assertThat(answer.get().status()).isEqualTo(503);
				assertThat(RawHttp.json(answer.get().body()).at("/error/data/reason").asText()).isEqualTo("relay_overloaded");
			}
		}

		HttpResponse<String> other = echo(OTHER_KEY, 1, 850_000);
		assertThat(other.statusCode()).as("another caller's large call is served from what the share leaves")
			.isEqualTo(200);
		assertThat(RawHttp.json(other.body()).at("/result/content/0/text").asText()).as("echoed whole")
			.hasSize(850_000 - echoCall(1, 850_000).indexOf("xxx") - "\"}}}".length());
		int refusals = (int) refused;
		// the access log's line is written as the exchange ends, a moment after the client has its answer
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(CapturedLogs.since(mark))
			.as("each refusal logged as the relay's overload, not as a failure")
			.filteredOn(line -> line.contains("mcp.relay.access") && line.contains("reason=relay_overloaded"))
			.hasSize(refusals)
			.allMatch(line -> line.contains("outcome=overloaded") && line.contains("client=greedy")));
	}

	/** A connection with the headers of a POST of {@code length} bytes sent, and nothing of its body. */
	private Socket open(String key, int length) throws IOException {
		Socket socket = new Socket("127.0.0.1", port);
		stalled.add(socket);
		socket.setSoTimeout(30_000);
		OutputStream out = socket.getOutputStream();
		out.write(("POST /mcp/sdk-json HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key
				+ "\r\nContent-Type: application/json\r\nAccept: " + RawHttp.ACCEPT_BOTH + "\r\nContent-Length: " + length
				+ "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
		out.flush();
		return socket;
	}

	/** The answer on {@code socket}, once one comes. */
	private static CompletableFuture<RawSocketHttp.Response> answer(Socket socket) {
		return CompletableFuture.supplyAsync(() -> {
			try {
				return RawSocketHttp.read(socket.getInputStream());
			}
			catch (IOException closed) {
				return null;
			}
		});
	}

	private HttpResponse<String> echo(String key, int id, int length) {
		RawHttp http = new RawHttp(port, "Authorization", "Bearer " + key);
		return http.send(http.post("sdk-json", echoCall(id, length)));
	}

	/** A {@code tools/call} of {@code echo} of {@code length} bytes, whose message is as long as it takes. */
	private static String echoCall(int id, int length) {
		String head = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
				+ "\"arguments\":{\"message\":\"";
		String tail = "\"}}}";
		return head + "x".repeat(length - head.length() - tail.length()) + tail;
	}

	private static String sha256(String key) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
		}
		catch (java.security.NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
