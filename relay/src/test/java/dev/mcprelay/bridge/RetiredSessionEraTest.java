package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;

import dev.mcprelay.interop.NodePeers;
import dev.mcprelay.security.RelayMac;
import dev.mcprelay.transport.StreamableHttpTransport;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamTransportException;

/**
 * Review 46e, N6: a 2025 client's session, relayed to its server unbridged, after the server was redeployed as one that
 * speaks only 2026-07-28 (the TypeScript SDK v2's {@code interop/only-2026-server.mjs}, which refuses the session's
 * request with 400 -32022 naming [2026-07-28]): the session ends (404 {@code session_ended}), so that the client
 * initializes again and is bridged, where it was answered 400 -32022 for ever; what the refusal names is learnt.
 */
class RetiredSessionEraTest {

	private static NodePeers.NodeServer modern;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		DataBufferUtils.release(org.springframework.core.io.buffer.DefaultDataBufferFactory.sharedInstance
			.allocateBuffer(1));
		dev.mcprelay.session.SessionIds.mint();
		modern = NodePeers.startServer("only-2026-server.mjs");
	}

	@AfterAll
	static void stop() throws InterruptedException {
		if (modern != null) {
			modern.close();
		}
	}

	@Test
	void aRelayedSessionWhoseVersionTheRedeployedServerRefusesEnds() throws Exception {
		ServerVersions versions = new ServerVersions("g", List.of());
		versions.learn(List.of("2025-11-25"));
		VersionBridge bridge = new VersionBridge(new StreamableHttpTransport(reactor.netty.http.client.HttpClient
			.create()), "g", versions, 1024 * 1024, new BridgedStreamsTest.Kept(), BridgedStreamsTest.flightsOf(null),
				Duration.ofSeconds(30), new RelayMac((String) null), Duration.ofSeconds(30));
		HttpHeaders headers = new HttpHeaders();
		headers.setContentType(MediaType.APPLICATION_JSON);
		headers.set(HttpHeaders.ACCEPT, "application/json, text/event-stream");
		headers.set("MCP-Protocol-Version", "2025-11-25");
		headers.set("Mcp-Session-Id", "a-session-of-the-server-before-its-redeploy");
		UpstreamRequest request = new UpstreamRequest("g", HttpMethod.POST, URI.create(modern.url()), headers,
				"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}".getBytes(StandardCharsets.UTF_8), "alice",
				null);

		CompletableFuture<Throwable> ended = new CompletableFuture<>();
		bridge.send(request, response -> response.releaseBody().doOnSuccess(nothing -> ended.complete(null)))
			.subscribe(null, ended::complete, () -> ended.complete(null));
		Throwable failed = ended.get(60, TimeUnit.SECONDS);

		assertThat(failed).as("the session ended, not a 400 handed on").isInstanceOf(UpstreamTransportException.class);
		UpstreamTransportException sessionEnded = (UpstreamTransportException) failed;
		assertThat(sessionEnded.kind()).isEqualTo(UpstreamTransportException.Kind.UNKNOWN_SESSION);
		assertThat(sessionEnded.reason()).isEqualTo("session_ended");
		assertThat(versions.known()).as("what the refusal names is learnt").containsExactly("2026-07-28");
		assertThat(versions.bridges("2025-11-25")).as("the client's next initialize is bridged").isTrue();
	}

}
