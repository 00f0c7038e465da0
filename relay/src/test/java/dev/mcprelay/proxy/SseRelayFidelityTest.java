package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RelayIntegrationTest;
import dev.mcprelay.testsupport.TestUpstreams;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** What the upstream streams is what the client receives, byte for byte, and the headers do not wait for events. */
class SseRelayFidelityTest extends RelayIntegrationTest {

	/** Event ids, names, retry, comments, CRLF and CR line ends, multi-line data, a priming event, a custom type. */
	static final String STREAM = ": stream opened\n\n"
			+ "id: 0\r\nretry: 2500\r\ndata:\r\n\r\n"
			+ "id: evt-1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
			+ "\"params\":{\"progressToken\":\"t\",\"progress\":1}}\n\n"
			+ "event: heartbeat\ndata: not json, and not a message\n\n"
			+ "id: evt-2\rdata: {\"jsonrpc\":\"2.0\",\rdata:  \"id\":\"req-1\",\rdata: \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ü ✓\"}]}}\r\r";

	@BeforeEach
	void clear() {
		TestUpstreams.SCRIPTED.clear();
	}

	@Test
	void eventsArriveByteForByteWhateverTheChunking() {
		byte[] stream = STREAM.getBytes(StandardCharsets.UTF_8);
		// 7-byte chunks cut through CRLF pairs, field names and a multi-byte character
		List<byte[]> chunks = new java.util.ArrayList<>();
		for (int i = 0; i < stream.length; i += 7) {
			chunks.add(java.util.Arrays.copyOfRange(stream, i, Math.min(stream.length, i + 7)));
		}
		TestUpstreams.SCRIPTED.script((request, response) -> UpstreamFaultTest.sse(response)
			.header("Mcp-Session-Id", "sse-session")
			.sendByteArray(Flux.fromIterable(chunks).delayElements(Duration.ofMillis(2))));

		HttpResponse<byte[]> response = sendForBytes(RawHttp.toolsCall("req-1", "x"));

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
		assertThat(response.headers().firstValue("Mcp-Session-Id")).hasValue("sse-session");
		assertThat(new String(response.body(), StandardCharsets.UTF_8)).as("the stream survives the relay byte for byte")
			.isEqualTo(STREAM);
	}

	@Test
	void headersReachTheClientBeforeTheFirstEvent() throws Exception {
		CompletableFuture<Void> clientSawHeaders = new CompletableFuture<>();
		String result = UpstreamFaultTest.event("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
		// An empty first chunk commits the upstream's headers; no event byte is sent until the client saw them.
		TestUpstreams.SCRIPTED.script((request, response) -> UpstreamFaultTest.sse(response)
			.send(Flux.concat(Mono.just(Unpooled.EMPTY_BUFFER),
					Mono.fromFuture(clientSawHeaders).timeout(Duration.ofSeconds(5)).then(Mono.<ByteBuf>empty()),
					Mono.fromSupplier(() -> Unpooled.copiedBuffer(result, StandardCharsets.UTF_8)))));

		HttpResponse<InputStream> response = http().open(http().post("scripted", RawHttp.toolsCall(1, "x")));
		assertThat(response.statusCode()).as("headers arrived while the upstream still holds back every event").isEqualTo(200);
		clientSawHeaders.complete(null);

		try (InputStream body = response.body()) {
			String all = new String(body.readAllBytes(), StandardCharsets.UTF_8);
			assertThat(all).contains("\"result\"");
		}
	}

	@Test
	void aBurstOfEventsEachInItsOwnHttpChunkArrivesWhole() {
		// Written as fast as the connection takes them, many of these chunks share a socket read: the relay reads them
		// in batches and must still hand on every byte, in order.
		StringBuilder expected = new StringBuilder();
		List<String> events = new java.util.ArrayList<>();
		for (int i = 0; i < 5000; i++) {
			String event = "id: " + i + "\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
					+ "\"params\":{\"progressToken\":\"t\",\"progress\":" + i + "}}\n\n";
			events.add(event);
			expected.append(event);
		}
		String result = UpstreamFaultTest.event("{\"jsonrpc\":\"2.0\",\"id\":\"req-1\",\"result\":{}}");
		events.add(result);
		expected.append(result);
		TestUpstreams.SCRIPTED.script((request, response) -> UpstreamFaultTest.sse(response)
			.sendString(Flux.fromIterable(events), StandardCharsets.UTF_8));

		HttpResponse<byte[]> response = sendForBytes(RawHttp.toolsCall("req-1", "x"));

		assertThat(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo(expected.toString());
	}

	@Test
	void eachEventReachesTheClientBeforeTheUpstreamSendsTheNext() throws Exception {
		String first = UpstreamFaultTest.event("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
				+ "\"params\":{\"progressToken\":\"t\",\"progress\":1}}");
		String last = UpstreamFaultTest.event("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
		CompletableFuture<Void> clientSawFirst = new CompletableFuture<>();
		TestUpstreams.SCRIPTED.script((request, response) -> UpstreamFaultTest.sse(response)
			.sendString(Flux.concat(Mono.just(first),
					Mono.fromFuture(clientSawFirst).timeout(Duration.ofSeconds(5)).then(Mono.<String>empty()),
					Mono.just(last))));

		HttpResponse<InputStream> response = http().open(http().post("scripted", RawHttp.toolsCall(1, "x")));
		try (InputStream body = response.body()) {
			byte[] firstBytes = body.readNBytes(first.getBytes(StandardCharsets.UTF_8).length);
			assertThat(new String(firstBytes, StandardCharsets.UTF_8)).as("the first event, while the upstream waits")
				.isEqualTo(first);
			clientSawFirst.complete(null);
			assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(last);
		}
	}

	@Test
	void getStreamRelaysServerInitiatedMessagesAndEndsWhenTheUpstreamDoes() {
		String request = "id: s-1\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"sampling/createMessage\",\"params\":{}}\n\n";
		TestUpstreams.SCRIPTED.script((req, response) -> UpstreamFaultTest.sse(response).sendString(Mono.just(request)));

		HttpResponse<String> response = http().send(http().request("scripted").header("Accept", "text/event-stream").GET());

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).as("the same event, the server's request under the relay's id (issue 39)")
			.matches("id: s-1\nevent: message\ndata: \\{\"jsonrpc\":\"2\\.0\",\"id\":\"mcp-relay\\.2\\.[^\"]+\",\"method\":"
					+ "\"sampling/createMessage\",\"params\":\\{\\}\\}\n\n");
	}

	@Test
	void aMessageWithoutAnIdThatNamesARequestMethodNeverReachesTheClientOnAStreamNoInterceptorWatches() {
		// no interceptor here: the stream's notifications take the fast path, which must drop this one as the full
		// path does (issue 39): a request without its id skipped its stage, and a client may execute what it is sent
		TestUpstreams.SCRIPTED.script((req, response) -> UpstreamFaultTest.sse(response).sendString(Mono.just(
				"id: g-1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":"
						+ "\"delete_everything\"}}\n\n"
						+ "id: g-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
						+ "\"params\":{\"level\":\"info\",\"data\":\"hello\"}}\n\n")));

		String body = http().send(http().request("scripted").header("Accept", "text/event-stream").GET()).body();

		assertThat(RawHttp.sseData(body)).extracting(message -> message.get("method").asText())
			.as("a request without its id is no notification").containsExactly("notifications/message");
		assertThat(body).as("its event keeps its id, so resumption skips it").contains("id: g-1")
			.doesNotContain("delete_everything");
	}

	private HttpResponse<byte[]> sendForBytes(String body) {
		try {
			return java.net.http.HttpClient.newHttpClient()
				.sendAsync(http().post("scripted", body).build(), HttpResponse.BodyHandlers.ofByteArray())
				.get(20, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new AssertionError(ex);
		}
	}

}
