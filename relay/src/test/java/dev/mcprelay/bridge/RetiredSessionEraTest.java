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

	/** A server of both generations: stateful 2025 sessions, and 2026-07-28 ({@code interop/conformance-server.mjs}). */
	private static NodePeers.NodeServer both;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		DataBufferUtils.release(org.springframework.core.io.buffer.DefaultDataBufferFactory.sharedInstance
			.allocateBuffer(1));
		dev.mcprelay.session.SessionIds.mint();
		modern = NodePeers.startServer("only-2026-server.mjs");
		both = NodePeers.startServer("conformance-server.mjs");
	}

	@AfterAll
	static void stop() throws InterruptedException {
		if (modern != null) {
			modern.close();
		}
		if (both != null) {
			both.close();
		}
	}

	@Test
	void aRelayedSessionWhoseVersionTheRedeployedServerRefusesEnds() throws Exception {
		ServerVersions versions = new ServerVersions("g", List.of());
		versions.learn(List.of("2025-11-25"));
		VersionBridge bridge = bridge(versions);
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

	/**
	 * Review 46f, F1: a 2025 client shapes a request of its own session as a server of both generations refuses with
	 * 400 -32022 naming only [2026-07-28] (a {@code _meta} 2026 envelope claiming 2025-11-25, which the TypeScript SDK
	 * v2 takes to its 2026 path). The relay's own {@code initialize} is answered: the refusal is the client's, handed on
	 * to it, nothing is learnt, and the next 2025 client is relayed to the server, which serves it
	 * ({@code logging/setLevel}, a session of the server's own). It used to end the session and learn [2026-07-28], and
	 * every later 2025 client was bridged ({@code logging/setLevel}: 404 -32601).
	 */
	@Test
	void aRefusalOfOneClientsCraftedRequestTeachesNothingAndTheNextClientIsRelayed() throws Exception {
		ServerVersions versions = new ServerVersions("b", List.of());
		VersionBridge bridge = bridge(versions);
		Answer attacker = send(bridge, both.url(), null, INITIALIZE.replace("NAME", "attacker"));
		assertThat(attacker.sessionId()).as("relayed: the server's session, %s", attacker).isNotNull()
			.doesNotStartWith("mcp-bridge-");

		Answer crafted = send(bridge, both.url(), attacker.sessionId(), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
				+ "\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2025-11-25\","
				+ "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
				+ "{\"name\":\"attacker\",\"version\":\"1\"}}}}");
		assertThat(crafted.failure()).as("the server's refusal handed on, the session not ended").isNull();
		assertThat(crafted.status()).isEqualTo(400);
		assertThat(crafted.body()).contains("-32022").contains("\"id\":2");
		assertThat(versions.bridges("2025-11-25")).as("nothing learnt: %s", versions.known()).isFalse();
		Answer listed = send(bridge, both.url(), attacker.sessionId(), "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
				+ "\"tools/list\"}");
		assertThat(listed.status()).as("the attacker's own session goes on: %s", listed).isEqualTo(200);

		Answer next = send(bridge, both.url(), null, INITIALIZE.replace("NAME", "next"));
		assertThat(next.sessionId()).as("the next 2025 client is relayed: %s", next).isNotNull()
			.doesNotStartWith("mcp-bridge-");
		Answer level = send(bridge, both.url(), next.sessionId(), "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
				+ "\"logging/setLevel\",\"params\":{\"level\":\"info\"}}");
		assertThat(level.status()).as("%s", level).isEqualTo(200);
		assertThat(SharedUpstreamSessionsTest.lastMessage("200 " + level.body()).has("result")).as("%s", level).isTrue();
		assertThat(versions.bridges("2025-11-25")).as("%s", versions.known()).isFalse();
	}

	private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
			+ "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"NAME\",\"version\":"
			+ "\"1\"}}}";

	static VersionBridge bridge(ServerVersions versions) {
		return new VersionBridge(new StreamableHttpTransport(reactor.netty.http.client.HttpClient.create()), "g",
				versions, 1024 * 1024, new BridgedStreamsTest.Kept(), BridgedStreamsTest.flightsOf(null),
				Duration.ofSeconds(30), new RelayMac((String) null), Duration.ofSeconds(30));
	}

	/** What the bridge answered a 2025 client's request: status, session id and body, or how it failed. */
	record Answer(int status, String sessionId, String body, Throwable failure) {
	}

	/**
	 * A 2025 client's POST of {@code body} through {@code bridge}: in {@code sessionId} (none for an
	 * {@code initialize}), with {@code MCP-Protocol-Version: 2025-11-25} after the {@code initialize}.
	 */
	static Answer send(VersionBridge bridge, String url, String sessionId, String body) throws Exception {
		HttpHeaders headers = new HttpHeaders();
		headers.setContentType(MediaType.APPLICATION_JSON);
		headers.set(HttpHeaders.ACCEPT, "application/json, text/event-stream");
		if (sessionId != null) {
			headers.set("MCP-Protocol-Version", "2025-11-25");
			headers.set("Mcp-Session-Id", sessionId);
		}
		UpstreamRequest request = new UpstreamRequest("g", HttpMethod.POST, URI.create(url), headers,
				body.getBytes(StandardCharsets.UTF_8), "alice", null);
		CompletableFuture<Answer> answered = new CompletableFuture<>();
		bridge.send(request, response -> response.body().map(buffer -> {
			String text = buffer.toString(StandardCharsets.UTF_8);
			DataBufferUtils.release(buffer);
			return text;
		}).collectList().doOnNext(texts -> answered.complete(new Answer(response.statusCode().value(),
				response.headers().getFirst("Mcp-Session-Id"), String.join("", texts), null))).then())
			.subscribe(null, failed -> answered.complete(new Answer(0, null, null, failed)));
		return answered.get(60, TimeUnit.SECONDS);
	}

}
