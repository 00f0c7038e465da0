package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Review 46h, N1: a 2025 server that answers a client's request at once with 400 -32022 naming [2026-07-28], but
 * answers the relay's own {@code initialize} (its {@link SessionEraProbe}) only later than the server's
 * {@code timeouts.non-streaming} (no real server is slow on purpose: scripted, the answer held until the test lets it
 * go). The client was kept waiting for the probe until its own deadline (504 {@code upstream_timeout} in the relay),
 * and the probe, given up at that deadline, never ended the session the server opened for it. Now the client is
 * handed the server's refusal before the probe answers, and the late answer still ends its session (a DELETE).
 */
class SlowSessionEraProbeTest {

	private static final Duration NON_STREAMING = Duration.ofSeconds(1);

	@Test
	void aProbeAnsweredLateNeitherHoldsTheClientNorLeavesItsSession() throws Exception {
		SlowProbeServer server = new SlowProbeServer();
		ServerVersions versions = new ServerVersions("g", List.of());
		VersionBridge bridge = new VersionBridge(server, "g", versions, 65536, new BridgedStreamsTest.Kept(),
				BridgedStreamsTest.flightsOf(null), Duration.ofSeconds(30),
				new dev.mcprelay.security.RelayMac((String) null), NON_STREAMING);
		RetiredSessionEraTest.Answer client = RetiredSessionEraTest.send(bridge, "http://127.0.0.1:1/mcp", null,
				INITIALIZE);
		assertThat(client.sessionId()).as("%s", client).isEqualTo("s-1");

		RetiredSessionEraTest.Answer oops = RetiredSessionEraTest.send(bridge, "http://127.0.0.1:1/mcp", "s-1", OOPS);
		assertThat(server.probeAnswered).as("the client was answered before the probe was").isFalse();
		assertThat(oops.failure()).as("the server's refusal handed on: %s", oops).isNull();
		assertThat(oops.status()).isEqualTo(400);
		assertThat(oops.body()).contains("-32022");
		assertThat(server.initializes.get()).as("the probe's initialize was sent").isEqualTo(2);

		// later than the server's timeouts.non-streaming after the probe was sent
		Thread.sleep(NON_STREAMING.multipliedBy(2).toMillis());
		server.answerProbe();
		Awaitility.await().atMost(30, TimeUnit.SECONDS)
			.untilAsserted(() -> assertThat(server.deleted.get()).as("the probe's session ended").isEqualTo(1));
		assertThat(server.live).as("the client's session goes on, the probe's ended").containsExactly("s-1");

		RetiredSessionEraTest.Answer again = RetiredSessionEraTest.send(bridge, "http://127.0.0.1:1/mcp", "s-1", OOPS);
		assertThat(again.status()).as("%s", again).isEqualTo(400);
		assertThat(versions.known()).as("nothing learnt").isEmpty();
	}

	private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
			+ "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":"
			+ "\"1\"}}}";

	private static final String OOPS = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
			+ "\"oops\",\"arguments\":{}}}";

	/**
	 * A 2025 server that keeps sessions, answers the tool {@code oops} with 400 -32022 [2026-07-28] at once, and the
	 * relay's {@code initialize} (client version {@code probe}) only when {@link #answerProbe} is called, opening its
	 * session as it is sent.
	 */
	private static final class SlowProbeServer implements PostOnlyUpstream {

		final Set<String> live = ConcurrentHashMap.newKeySet();

		final AtomicInteger initializes = new AtomicInteger();

		final AtomicInteger deleted = new AtomicInteger();

		final Sinks.Empty<Void> probeGate = Sinks.empty();

		volatile boolean probeAnswered;

		void answerProbe() {
			probeAnswered = true;
			probeGate.tryEmitEmpty();
		}

		@Override
		public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return Mono.defer(() -> {
				if (request.onWritten() != null) {
					request.onWritten().run();
				}
				String body = new String(request.body(), StandardCharsets.UTF_8);
				UpstreamResponse answer = answer(request, body);
				return body.contains("\"version\":\"probe\"") ? probeGate.asMono().then(Mono.defer(
						() -> handler.apply(answer))) : handler.apply(answer);
			});
		}

		private UpstreamResponse answer(UpstreamRequest request, String body) {
			String id = dev.mcprelay.testsupport.RawHttp.json(body).path("id").toString();
			HttpHeaders headers = new HttpHeaders();
			headers.setContentType(MediaType.APPLICATION_JSON);
			if (body.contains("\"method\":\"initialize\"")) {
				String session = "s-" + initializes.incrementAndGet();
				live.add(session);
				headers.set("Mcp-Session-Id", session);
				return LocalUpstreamResponse.json(headers, ("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":"
						+ "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},\"serverInfo\":"
						+ "{\"name\":\"slow\",\"version\":\"1\"}}}").getBytes(StandardCharsets.UTF_8));
			}
			if (!live.contains(String.valueOf(request.sessionId()))) {
				return LocalUpstreamResponse.replay(HttpStatus.NOT_FOUND, headers, "{}".getBytes(StandardCharsets.UTF_8));
			}
			return LocalUpstreamResponse.replay(HttpStatus.BAD_REQUEST, headers, ("{\"jsonrpc\":\"2.0\",\"id\":" + id
					+ ",\"error\":{\"code\":-32022,\"message\":\"Unsupported protocol version\",\"data\":"
					+ "{\"supported\":[\"2026-07-28\"]}}}").getBytes(StandardCharsets.UTF_8));
		}

		@Override
		public Mono<Void> close(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return Mono.defer(() -> {
				boolean ended = live.remove(request.sessionId());
				if (ended) {
					deleted.incrementAndGet();
				}
				return handler.apply(LocalUpstreamResponse.empty(ended ? HttpStatus.OK : HttpStatus.NOT_FOUND));
			});
		}

	}

}
