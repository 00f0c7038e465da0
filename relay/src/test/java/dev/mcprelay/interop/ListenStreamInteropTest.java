package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
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
import dev.mcprelay.proxy.GracefulShutdownTest;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RawHttp;

/**
 * A 2026-07-28 {@code subscriptions/listen} stream, served by the official TypeScript SDK v2 server
 * ({@code interop/listen-server-v2.mjs}, a keepalive every 15 s), is quiet by design: through the relay its silence
 * past {@code streaming-idle} ends it normally (as a GET stream ends), never with an error, and shutdown ends it as
 * the protocol ends a subscription, with a {@code resultType: complete} result. Each test runs its own relay (2s idle
 * bound), on its own event loops so it can be stopped.
 */
class ListenStreamInteropTest {

	private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
			+ "{\"name\":\"mcp-relay-interop\",\"version\":\"1\"}}";

	private static final String LISTEN = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"subscriptions/listen\",\"params\":"
			+ "{\"notifications\":{\"toolsListChanged\":true}," + META + "}}";

	private static NodePeers.NodeServer server;

	@BeforeAll
	static void startServer() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		server = NodePeers.startServer("listen-server-v2.mjs");
	}

	@AfterAll
	static void stopServer() throws Exception {
		if (server != null) {
			server.close();
		}
	}

	@Test
	void aQuietListenStreamEndsNormallyAtTheIdleBoundNeverWithAnError() throws Exception {
		try (ConfigurableApplicationContext relay = startRelay()) {
			RawHttp http = http(relay);
			int logMark = CapturedLogs.all().size();

			String body = http.send(listen(http)).body();

			List<JsonNode> events = RawHttp.sseData(body);
			assertThat(events).as("the acknowledgement, and then the stream's normal end: nothing else")
				.extracting(event -> event.path("method").asText("response"))
				.containsExactly("notifications/subscriptions/acknowledged");
			assertThat(body).doesNotContain("upstream_stream_idle").doesNotContain("\"error\"");
			// The access-log line is written when the exchange ends, which may be just after the client read its end.
			org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
					CapturedLogs.since(logMark))
				.anyMatch(line -> line.contains("rpc_method=subscriptions/listen") && line.contains("outcome=forwarded"))
				.noneMatch(line -> line.contains("outcome=failed")));
		}
	}

	@Test
	void shutdownEndsAListenStreamWithItsCompleteResult() throws Exception {
		ConfigurableApplicationContext relay = startRelay();
		RawHttp http = http(relay);
		HttpResponse<InputStream> stream = http.open(listen(http));
		CompletableFuture<String> body = CompletableFuture.supplyAsync(() -> RawHttp.readAll(stream.body()));
		Thread.sleep(300);

		long start = System.nanoTime();
		relay.close();

		List<JsonNode> events = RawHttp.sseData(body.get(5, TimeUnit.SECONDS));
		assertThat(events).extracting(event -> event.path("method").asText("response"))
			.containsExactly("notifications/subscriptions/acknowledged", "response");
		JsonNode end = events.get(1);
		assertThat(end.path("id").asInt()).isEqualTo(7);
		assertThat(end.at("/result/resultType").asText()).as("ended as a server ends a subscription").isEqualTo("complete");
		assertThat(end.at("/result/_meta/io.modelcontextprotocol~1subscriptionId").asInt()).isEqualTo(7);
		assertThat(end.has("error")).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("at once, not after the POST streams' grace")
			.isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void theSdkV2ClientSeesItsSubscriptionEndGracefullyWhenTheRelayShutsDown() throws Exception {
		com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
		JsonNode direct = json.readTree(NodePeers.runClient("listen-client-v2.mjs", server.url(), "1500"));
		assertThat(direct.path("closed").asText()).as("direct, a quiet subscription stays open: %s", direct)
			.isEqualTo("open");

		ConfigurableApplicationContext relay = startRelay();
		String relayUrl = "http://127.0.0.1:" + ((WebServerApplicationContext) relay).getWebServer().getPort() + "/mcp/v2";
		java.nio.file.Path acknowledged = java.nio.file.Files.createTempDirectory("listen").resolve("acknowledged");
		CompletableFuture<String> relayed = CompletableFuture.supplyAsync(() -> {
			try {
				return NodePeers.runClient("listen-client-v2.mjs", relayUrl, "8000", acknowledged.toString());
			}
			catch (java.io.IOException ex) {
				throw new java.io.UncheckedIOException(ex);
			}
		});
		// shut down once the client holds the subscription's acknowledgement (its stream is open through the relay, and
		// what the relay had to relay of it has been taken: an open stream alone races the acknowledgement)
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!java.nio.file.Files.exists(acknowledged)) {
			assertThat(relayed).as("the client is still waiting for its subscription").isNotDone();
			assertThat(System.nanoTime()).as("the client's subscription was acknowledged through the relay")
				.isLessThan(deadline);
			Thread.sleep(20);
		}
		relay.close();

		JsonNode ended = json.readTree(relayed.get(20, TimeUnit.SECONDS));
		assertThat(ended.path("honoredFilter").path("toolsListChanged").asBoolean()).as("acknowledged through the relay")
			.isTrue();
		assertThat(ended.path("closed").asText()).as("the SDK client saw its subscription end gracefully: %s", ended)
			.isEqualTo("graceful");
	}

	private static ConfigurableApplicationContext startRelay() {
		return new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.properties("server.port=0", "server.address=127.0.0.1", "mcp-relay.servers.v2.url=" + server.url(),
					"mcp-relay.servers.v2.timeouts.streaming-idle=2s", "mcp-relay.shutdown.stream-grace-period=10s")
			.run();
	}

	private static RawHttp http(ConfigurableApplicationContext relay) {
		return new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
	}

	private static HttpRequest.Builder listen(RawHttp http) {
		return http.post("v2", LISTEN)
			.header("MCP-Protocol-Version", "2026-07-28")
			.header("Mcp-Method", "subscriptions/listen");
	}

}
