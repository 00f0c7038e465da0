package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import dev.mcprelay.security.RelayMac;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import reactor.core.publisher.Mono;

/**
 * Review 46c, MED 10: a 2025 client's malformed {@code clientInfo} (which the relay's {@code server/discover} carries
 * in its envelope, and a 2026 server refuses with 400 -32602, as the TypeScript SDK v2's {@code envelope-invalid})
 * made the relay forget a 2026-only server's versions, a revision each, so that after three of them a real redeploy
 * went unnoticed for ten minutes, and the client was told -32022 about a version it did not choose. Against a scripted
 * server that answers as the TypeScript SDK v2 (2026-only) does, then as v1 (2025-only) after its redeploy.
 */
class ClientContentRefusalTest {

	private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
			+ "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":INFO}}";

	@Test
	void aDiscoveryRefusedForTheClientsOwnClientInfoRevisesNothingAndTellsTheClient() throws Exception {
		AtomicBoolean redeployed = new AtomicBoolean();
		AtomicInteger initializes = new AtomicInteger();
		ServerVersions versions = new ServerVersions("t", List.of());
		versions.learn(List.of("2026-07-28"));
		VersionBridge bridge = new VersionBridge(new Scripted(request -> {
			String body = new String(request.body(), StandardCharsets.UTF_8);
			HttpHeaders headers = new HttpHeaders();
			headers.setContentType(MediaType.APPLICATION_JSON);
			if (body.contains("\"method\":\"initialize\"")) {
				initializes.incrementAndGet();
				return redeployed.get() ? json(HttpStatus.OK, headers, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{"
						+ "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"serverInfo\":{\"name\":\"v1\","
						+ "\"version\":\"1\"}}}")
						: json(HttpStatus.BAD_REQUEST, headers, "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":"
								+ "-32022,\"message\":\"Unsupported protocol version: 2025-11-25\",\"data\":{"
								+ "\"supported\":[\"2026-07-28\"]}}}");
			}
			if (redeployed.get()) {
				return json(HttpStatus.BAD_REQUEST, headers, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":"
						+ "-32000,\"message\":\"Bad Request: Server not initialized\"}}");
			}
			if (body.contains("\"name\":5")) {
				return json(HttpStatus.BAD_REQUEST, headers, "{\"jsonrpc\":\"2.0\",\"id\":\"mcp-relay-discover\","
						+ "\"error\":{\"code\":-32602,\"message\":\"Invalid _meta envelope for protocol revision "
						+ "2026-07-28: io.modelcontextprotocol/clientInfo: name must be a string\"}}");
			}
			return json(HttpStatus.OK, headers, "{\"jsonrpc\":\"2.0\",\"id\":\"mcp-relay-discover\",\"result\":{"
					+ "\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{}}}");
		}), "t", versions, 65536, new BridgedStreamsTest.Kept(), BridgedStreamsTest.flightsOf(null),
				Duration.ofSeconds(60), new RelayMac((String) null), Duration.ofSeconds(60));

		for (int bad = 0; bad < 4; bad++) {
			String refused = send(bridge, INITIALIZE.replace("INFO", "{\"name\":5,\"version\":\"1\"}"));
			assertThat(refused).as("the client is told what was wrong with its request: %s", refused)
				.startsWith("200 ").contains("-32602").contains("clientInfo").contains("\"id\":1")
				.doesNotContain("-32022");
		}
		assertThat(initializes).as("nothing forgotten: the initialize was never relayed").hasValue(0);
		assertThat(versions.known()).containsExactly("2026-07-28");

		redeployed.set(true);
		String relayed = send(bridge, INITIALIZE.replace("INFO", "{\"name\":\"good\",\"version\":\"1\"}"));
		assertThat(relayed).as("the redeploy is noticed at once: %s", relayed).contains("\"name\":\"v1\"");
		assertThat(initializes).hasValue(1);
	}

	/**
	 * Review 46e, N3: a 2025 client's oversized {@code clientInfo} makes the discovery that carries it too large for the
	 * server (the TypeScript SDK v2 answers 413 -32000 over 4 MiB): a refusal of the client's making, which revised a
	 * version each. The relay now asks its own {@code server/discover} first: answered, nothing is forgotten, the
	 * client is told, and the bound of revisions stays whole, so the real redeploy after is noticed at once.
	 */
	@Test
	void aDiscoveryTooLargeForTheServerRevisesNothing() throws Exception {
		AtomicBoolean redeployed = new AtomicBoolean();
		AtomicInteger initializes = new AtomicInteger();
		java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();
		ServerVersions versions = new ServerVersions("t", List.of());
		versions.learn(List.of("2026-07-28"));
		VersionBridge bridge = new VersionBridge(new Scripted(request -> {
			String body = new String(request.body(), StandardCharsets.UTF_8);
			HttpHeaders headers = new HttpHeaders();
			headers.setContentType(MediaType.APPLICATION_JSON);
			if (body.contains("\"method\":\"initialize\"")) {
				initializes.incrementAndGet();
				return redeployed.get() ? json(HttpStatus.OK, headers, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{"
						+ "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"serverInfo\":{\"name\":\"v1\","
						+ "\"version\":\"1\"}}}")
						: json(HttpStatus.BAD_REQUEST, headers, "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":"
								+ "-32022,\"message\":\"Unsupported protocol version: 2025-11-25\",\"data\":{"
								+ "\"supported\":[\"2026-07-28\"]}}}");
			}
			if (request.body().length > 4096) {
				return json(HttpStatus.PAYLOAD_TOO_LARGE, headers, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{"
						+ "\"code\":-32000,\"message\":\"Payload Too Large: Request body must not exceed 4096 bytes\"}}");
			}
			if (redeployed.get()) {
				return json(HttpStatus.BAD_REQUEST, headers, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":"
						+ "-32000,\"message\":\"Bad Request: Server not initialized\"}}");
			}
			return json(HttpStatus.OK, headers, "{\"jsonrpc\":\"2.0\",\"id\":\"mcp-relay-probe\",\"result\":{"
					+ "\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{}}}");
		}), "t", versions, 65536, new BridgedStreamsTest.Kept(), BridgedStreamsTest.flightsOf(null),
				Duration.ofSeconds(60), new RelayMac((String) null), Duration.ofSeconds(60), UnrelayedListChanges.NONE,
				ServerCredentials.NONE, clock::get);

		String big = "{\"name\":\"" + "x".repeat(8192) + "\",\"version\":\"1\"}";
		for (int bad = 0; bad < 4; bad++) {
			String refused = send(bridge, INITIALIZE.replace("INFO", big));
			assertThat(refused).as("the client is told the server's refusal: %s", refused).contains("Payload Too Large")
				.contains("\"id\":1");
		}
		assertThat(initializes).as("nothing forgotten: the initialize was never relayed").hasValue(0);
		assertThat(versions.known()).containsExactly("2026-07-28");
		assertThat(versions.bridges("2025-11-25")).isTrue();

		redeployed.set(true);
		// the relay's own server/discover is asked once per interval, its verdict shared (review 46j, N3)
		clock.addAndGet(ServerVersions.PROBE_INTERVAL.toNanos());
		String relayed = send(bridge, INITIALIZE.replace("INFO", "{\"name\":\"good\",\"version\":\"1\"}"));
		assertThat(relayed).as("the redeploy is noticed at the next refusal after the interval: %s", relayed).contains("\"name\":\"v1\"");
		assertThat(initializes).hasValue(1);
	}

	private static UpstreamResponse json(HttpStatus status, HttpHeaders headers, String body) {
		return LocalUpstreamResponse.replay(status, headers, body.getBytes(StandardCharsets.UTF_8));
	}

	private static String send(VersionBridge bridge, String body) throws Exception {
		UpstreamRequest request = new UpstreamRequest("t", HttpMethod.POST, URI.create("http://127.0.0.1:1/mcp"),
				new HttpHeaders(), body.getBytes(StandardCharsets.UTF_8), "alice", null);
		CompletableFuture<String> answered = new CompletableFuture<>();
		bridge.send(request, response -> response.body().map(buffer -> {
			String text = buffer.toString(StandardCharsets.UTF_8);
			DataBufferUtils.release(buffer);
			return text;
		}).collectList().doOnNext(texts -> answered.complete(response.statusCode().value() + " "
				+ String.join("", texts))).then()).subscribe(null, failed -> answered.complete(failed.toString()));
		return answered.get(30, TimeUnit.SECONDS);
	}

	/** A server as {@code answer} scripts it. */
	private record Scripted(Function<UpstreamRequest, UpstreamResponse> answer) implements PostOnlyUpstream {

		@Override
		public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return Mono.defer(() -> {
				UpstreamResponse response = answer.apply(request);
				request.onWritten().run();
				return handler.apply(response);
			});
		}


	}

}
