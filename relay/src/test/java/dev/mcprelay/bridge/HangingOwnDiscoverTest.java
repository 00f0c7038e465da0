package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import dev.mcprelay.security.RelayMac;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import reactor.core.publisher.Mono;

/**
 * Review 46k, K1: a server that answers every client's request at once, but never the relay's own
 * {@code server/discover} (no real server hangs on purpose: scripted). A client waited its whole
 * {@code timeouts.non-streaming} for that discover, so the relay's deadline fired first and it got a 504
 * {@code upstream_timeout} that blamed the server. Now a client waits for an own request at most half its deadline
 * from when its request was sent ({@link SharedVerdict#ask}), then gets what it would without it: the server's own
 * refusal, handed on; the discover goes on without it, one for every client. What is asserted is the order (the
 * client answered while the discover still hung, which the relay gives up at the client's whole deadline), not a
 * wall-clock time.
 */
class HangingOwnDiscoverTest {

	private static final Duration NON_STREAMING = Duration.ofSeconds(20);

	private static final String URL = "http://127.0.0.1:1/mcp";

	private static final String REFUSAL = "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":"
			+ "\"Bad Request: Server not initialized\"},\"id\":null}";

	@Test
	void aTwentyTwentySixClientGetsTheServersRefusalWithinHalfItsDeadline() throws Exception {
		HangingDiscover server = new HangingDiscover();
		VersionBridge bridge = bridge(server, new ServerVersions("h", List.of()));

		long started = System.nanoTime();
		String answer = SharedUpstreamSessionsTest.send(bridge, URL, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":"
				+ "\"tools/list\",\"params\":{}}").get(60, TimeUnit.SECONDS);
		Duration waited = Duration.ofNanos(System.nanoTime() - started);

		assertThat(answer).as("the server's own refusal, handed on").startsWith("400 ").contains("-32000");
		assertThat(server.discoverEndedBeforeTheClient()).as("answered while the own discover still hung (after %s; "
				+ "was at its end, the client's whole deadline: a 504)", waited).isFalse();
		assertThat(server.ownDiscovers.get()).as("the relay's own discover was sent").isEqualTo(1);
	}

	@Test
	void aTwentyTwentyFiveClientOfARedeployedServerGetsItsRefusalWithinHalfItsDeadline() throws Exception {
		HangingDiscover server = new HangingDiscover();
		ServerVersions versions = new ServerVersions("h", List.of());
		versions.learn(List.of("2026-07-28"));
		VersionBridge bridge = bridge(server, versions);

		long started = System.nanoTime();
		RetiredSessionEraTest.Answer answer = RetiredSessionEraTest.send(bridge, URL, null, "{\"jsonrpc\":\"2.0\","
				+ "\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
				+ "{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}");
		Duration waited = Duration.ofNanos(System.nanoTime() - started);

		assertThat(answer.failure()).as("%s", answer).isNull();
		assertThat(answer.body()).as("the bridge's discover refused, under the initialize's id").contains("-32000")
			.contains("\"id\":1");
		assertThat(server.discoverEndedBeforeTheClient()).as("answered while the own discover still hung (after %s; "
				+ "was at its end, the client's whole deadline: a 504)", waited).isFalse();
		assertThat(server.ownDiscovers.get()).as("the relay's own discover was sent").isEqualTo(1);
		assertThat(versions.known()).as("nothing forgotten without the relay's own verdict").contains("2026-07-28");
	}

	private static VersionBridge bridge(HangingDiscover server, ServerVersions versions) {
		return new VersionBridge(server, "h", versions, 65536, new BridgedStreamsTest.Kept(),
				BridgedStreamsTest.flightsOf(null), Duration.ofSeconds(30), new RelayMac((String) null), NON_STREAMING);
	}

	/**
	 * A server of the session era that refuses every request without a session at once (400 -32000, as the MCP Java
	 * and TypeScript SDKs do), and never answers the relay's own {@code server/discover}.
	 */
	private static final class HangingDiscover implements PostOnlyUpstream {

		final AtomicInteger ownDiscovers = new AtomicInteger();

		/** Whether the relay gave up the own discover (at its bound, the client's deadline). */
		private volatile boolean discoverEnded;

		/** Whether the relay gave up the own discover (read as soon as the client is answered). */
		boolean discoverEndedBeforeTheClient() {
			return discoverEnded;
		}

		@Override
		public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return Mono.defer(() -> {
				if (request.onWritten() != null) {
					request.onWritten().run();
				}
				if (new String(request.body(), StandardCharsets.UTF_8).contains("\"mcp-relay-probe\"")) {
					ownDiscovers.incrementAndGet();
					return Mono.<Void>never().doOnCancel(() -> discoverEnded = true);
				}
				HttpHeaders headers = new HttpHeaders();
				headers.setContentType(MediaType.APPLICATION_JSON);
				return handler.apply(LocalUpstreamResponse.replay(HttpStatus.BAD_REQUEST, headers,
						REFUSAL.getBytes(StandardCharsets.UTF_8)));
			});
		}

	}

}
