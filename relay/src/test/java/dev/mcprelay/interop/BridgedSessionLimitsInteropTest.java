package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.session.SessionKey;
import dev.mcprelay.session.SessionStore;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * A 2025 client's session of a 2026-only server through the version bridge, at its limits, against the TypeScript SDK
 * v2 server that accepts only 2026-07-28 ({@code interop/only-2026-server.mjs}): {@code sessions.idle-timeout} (3 s
 * here) ends an unused session, never one whose GET stream is open (review K, LOW 6); and a name too long for the
 * {@code Mcp-Name} header is answered with a JSON-RPC error and never sent (LOW 9: the server answered it with an HTML
 * 431, which reached the client), while a long one within the bound reaches the server.
 */
class BridgedSessionLimitsInteropTest {

	private static NodePeers.NodeServer server;

	private static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		server = NodePeers.startServer("only-2026-server.mjs");
		relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.properties("server.port=0", "server.address=127.0.0.1", "mcp-relay.servers.new.url=" + server.url(),
					"mcp-relay.servers.new.protocol-versions=2026-07-28", "mcp-relay.sessions.idle-timeout=3s")
			.run();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (server != null) {
			server.close();
		}
	}

	@Test
	void aBridgedSessionWhoseGetStreamIsOpenOutlivesTheIdleTimeoutWhileAnUnusedOneEnds() throws Exception {
		RawHttp http = new RawHttp(port());
		McpSession listening = McpSession.open(http, "new");
		McpSession unused = McpSession.open(http, "new");
		assertThat(listening.id()).startsWith("mcp-bridge-");
		HttpResponse<InputStream> stream = http.open(http.request("new").header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", listening.id()).header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION).GET());
		assertThat(stream.statusCode()).as("the bridged GET stream: the server's subscriptions/listen").isEqualTo(200);
		CompletableFuture<String> streamed = CompletableFuture.supplyAsync(() -> RawHttp.readAll(stream.body()));

		SessionStore store = relay.getBean(SessionStore.class);
		// asked without renewing anything: the unused session expires 3 s after its last use
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
			.until(() -> !store.exists(new SessionKey("new", unused.id())).block());

		assertThat(streamed).as("the GET stream is still open").isNotDone();
		assertThat(echo(listening, 2, "still here")).as("the session with its GET stream open is in use")
			.isEqualTo("still here");
		HttpResponse<String> expired = unused.post(call(3, "echo", "gone"));
		assertThat(expired.statusCode()).as("the unused one ended: %s", expired.body()).isEqualTo(404);

		HttpResponse<String> deleted = http.send(http.request("new").header("Mcp-Session-Id", listening.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION).DELETE());
		assertThat(deleted.statusCode()).isEqualTo(200);
		assertThat(streamed.get(10, TimeUnit.SECONDS)).as("its GET stream ends with it").isNotNull();
	}

	@Test
	void aNameTooLongForTheMcpNameHeaderIsAnsweredWithAJsonRpcErrorAndNeverSent() {
		McpSession session = McpSession.open(new RawHttp(port()), "new");
		for (String name : new String[] { "x".repeat(70_000), "\u20ac".repeat(1_100) }) {
			HttpResponse<String> refused = session.post(call(5, name, "text"));
			assertThat(refused.statusCode()).as("a JSON-RPC answer, not the server's 431: %s",
					refused.body().substring(0, Math.min(200, refused.body().length()))).isEqualTo(200);
			JsonNode error = RawHttp.messagesOf(refused).get(0);
			assertThat(error.path("id").asInt()).isEqualTo(5);
			assertThat(error.at("/error/code").asInt()).isEqualTo(-32602);
			assertThat(error.at("/error/data/reason").asText()).as("%d characters", name.length())
				.isEqualTo("mcp_name_too_long");
		}

		HttpResponse<String> sent = session.post(call(6, "y".repeat(4_000), "text"));
		assertThat(sent.statusCode()).as("a long name within the bound reaches the server").isEqualTo(200);
		assertThat(sent.body()).as("the server's own answer to a tool it does not have").doesNotContain("mcp_name_too_long")
			.contains("y".repeat(4_000));
	}

	private static String echo(McpSession session, int id, String text) {
		HttpResponse<String> answer = session.post(call(id, "echo", text));
		assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
		return RawHttp.messagesOf(answer).get(0).at("/result/content/0/text").asText();
	}

	private static String call(int id, String tool, String text) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
				+ "\",\"arguments\":{\"text\":\"" + text + "\"}}}";
	}

	private static int port() {
		return ((WebServerApplicationContext) relay).getWebServer().getPort();
	}

}
