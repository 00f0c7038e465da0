package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Mono;

/**
 * Review 46f, F3: a 2025 server that answers one tool's call with 400 -32022 naming only [2026-07-28] by mistake
 * (no real server does: scripted). Each such answer ended the client's session and was learnt for the server; a few
 * spent the bound of revisions and left the versions at [2026-07-28], and every new 2025 client's {@code initialize}
 * was bridged and refused for ten minutes. Now the relay's own {@code initialize} decides: the server answers it, so
 * every mistaken refusal is handed on to its client, its session goes on, nothing is learnt, the session the relay's
 * {@code initialize} opened is ended, and a new 2025 client is relayed.
 */
class MistakenVersionRefusalTest {

	@Test
	void mistakenVersionRefusalsLockNoClientOut() throws Exception {
		MistakenServer server = new MistakenServer();
		ServerVersions versions = new ServerVersions("g", List.of());
		VersionBridge bridge = bridge(server, versions);
		RetiredSessionEraTest.Answer client = RetiredSessionEraTest.send(bridge, "http://127.0.0.1:1/mcp", null,
				INITIALIZE);
		assertThat(client.sessionId()).as("%s", client).isEqualTo("s-1");

		int refusals = ServerVersions.MAX_REVISIONS + 2;
		for (int call = 1; call <= refusals; call++) {
			RetiredSessionEraTest.Answer oops = RetiredSessionEraTest.send(bridge, "http://127.0.0.1:1/mcp", "s-1",
					"{\"jsonrpc\":\"2.0\",\"id\":" + (call + 1) + ",\"method\":\"tools/call\",\"params\":{\"name\":"
							+ "\"oops\",\"arguments\":{}}}");
			assertThat(oops.failure()).as("the refusal handed on, the session not ended (call %s)", call).isNull();
			assertThat(oops.status()).isEqualTo(400);
			assertThat(oops.body()).contains("-32022");
			assertThat(versions.known()).as("nothing learnt (call %s)", call).isEmpty();
		}
		assertThat(server.live).as("the client's session goes on").contains("s-1");
		int probes = server.initializes.get() - 1;
		assertThat(probes).as("the relay's own initialize, at most once per refusal").isBetween(1, refusals);
		assertThat(server.deleted.get()).as("every session the relay's initialize opened ended").isEqualTo(probes);

		RetiredSessionEraTest.Answer next = RetiredSessionEraTest.send(bridge, "http://127.0.0.1:1/mcp", null,
				INITIALIZE);
		assertThat(next.sessionId()).as("a new 2025 client is relayed: %s", next).startsWith("s-");
		assertThat(next.body()).contains("\"serverInfo\":{\"name\":\"mistaken\"");
	}

	private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
			+ "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":"
			+ "\"1\"}}}";

	private static VersionBridge bridge(UpstreamTransport server, ServerVersions versions) {
		return new VersionBridge(server, "g", versions, 65536, new BridgedStreamsTest.Kept(),
				BridgedStreamsTest.flightsOf(null), java.time.Duration.ofSeconds(30),
				new dev.mcprelay.security.RelayMac((String) null), java.time.Duration.ofSeconds(30));
	}

	/** A 2025 server that keeps sessions and answers the tool {@code oops} with 400 -32022 [2026-07-28]. */
	private static final class MistakenServer implements PostOnlyUpstream {

		final Set<String> live = ConcurrentHashMap.newKeySet();

		final AtomicInteger initializes = new AtomicInteger();

		final AtomicInteger deleted = new AtomicInteger();

		@Override
		public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return Mono.defer(() -> {
				if (request.onWritten() != null) {
					request.onWritten().run();
				}
				return handler.apply(answer(request));
			});
		}

		private UpstreamResponse answer(UpstreamRequest request) {
			String body = new String(request.body(), StandardCharsets.UTF_8);
			String id = dev.mcprelay.testsupport.RawHttp.json(body).path("id").toString();
			HttpHeaders headers = new HttpHeaders();
			headers.setContentType(MediaType.APPLICATION_JSON);
			if (body.contains("\"method\":\"initialize\"")) {
				String session = "s-" + initializes.incrementAndGet();
				live.add(session);
				headers.set("Mcp-Session-Id", session);
				return json(headers, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"protocolVersion\":"
						+ "\"2025-11-25\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"mistaken\","
						+ "\"version\":\"1\"}}}");
			}
			if (!live.contains(String.valueOf(request.sessionId()))) {
				return LocalUpstreamResponse.replay(HttpStatus.NOT_FOUND, headers, "{}".getBytes(StandardCharsets.UTF_8));
			}
			if (body.contains("\"oops\"")) {
				return LocalUpstreamResponse.replay(HttpStatus.BAD_REQUEST, headers, ("{\"jsonrpc\":\"2.0\",\"id\":" + id
						+ ",\"error\":{\"code\":-32022,\"message\":\"Unsupported protocol version\",\"data\":"
						+ "{\"supported\":[\"2026-07-28\"]}}}").getBytes(StandardCharsets.UTF_8));
			}
			return json(headers, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{}}");
		}

		private static UpstreamResponse json(HttpHeaders headers, String body) {
			return LocalUpstreamResponse.json(headers, body.getBytes(StandardCharsets.UTF_8));
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
