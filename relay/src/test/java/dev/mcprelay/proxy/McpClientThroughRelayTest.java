package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RelayIntegrationTest;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestUpstreams;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * A real MCP client (the official Java SDK's) talks to real MCP servers (the SDK's, over SSE and over JSON) directly
 * and through the relay, and must see the same thing both ways.
 */
class McpClientThroughRelayTest extends RelayIntegrationTest {

	private final SdkMcpUpstream upstream = TestUpstreams.SDK;

	private final List<McpSyncClient> clients = new CopyOnWriteArrayList<>();

	@BeforeEach
	void reset() {
		upstream.clearSeen();
		upstream.resetProgressGate();
	}

	@AfterEach
	void closeClients() {
		clients.forEach(McpSyncClient::close);
	}

	@ParameterizedTest(name = "{0} answers the same through the relay as directly")
	@CsvSource({ "sdk, /mcp", "sdk-json, /stateless" })
	void initializeListAndCallGiveTheSameAnswersAsDirect(String server, String upstreamPath) {
		McpSyncClient direct = client(upstream.url(""), upstreamPath, null);
		McpSyncClient relayed = client("http://127.0.0.1:" + port, "/mcp/" + server, null);

		McpSchema.InitializeResult directInit = direct.initialize();
		McpSchema.InitializeResult relayedInit = relayed.initialize();
		assertThat(relayedInit).as("initialize result").isEqualTo(directInit);

		assertThat(relayed.listTools()).as("tools/list result").isEqualTo(direct.listTools());

		McpSchema.CallToolRequest call = McpSchema.CallToolRequest.builder()
			.name("echo")
			.arguments(Map.of("message", "héllo \"relay\" \n ✓"))
			.build();
		McpSchema.CallToolResult relayedResult = relayed.callTool(call);
		assertThat(relayedResult).as("tools/call result").isEqualTo(direct.callTool(call));
		assertThat(((McpSchema.TextContent) relayedResult.content().get(0)).text()).isEqualTo("héllo \"relay\" \n ✓");
	}

	@Test
	void sessionIdAndProtocolVersionFlowBothWays() {
		McpSyncClient relayed = client("http://127.0.0.1:" + port, "/mcp/sdk", null);
		String negotiated = relayed.initialize().protocolVersion();
		relayed.listTools();

		List<SdkMcpUpstream.Seen> posts = upstream.seen().stream().filter(s -> s.method().equals("POST")).toList();
		assertThat(posts).as("initialize, notifications/initialized, tools/list").hasSizeGreaterThanOrEqualTo(3);
		assertThat(posts.get(0).headers().getFirst("Mcp-Session-Id")).as("initialize carries no session yet").isNull();
		List<SdkMcpUpstream.Seen> afterInit = posts.subList(1, posts.size());
		String sessionId = afterInit.get(0).headers().getFirst("Mcp-Session-Id");
		assertThat(sessionId).as("the client got the upstream's session id through the relay and echoes it").isNotBlank();
		assertThat(afterInit).allSatisfy(seen -> {
			assertThat(seen.headers().getFirst("Mcp-Session-Id")).as("session id on every later request").isEqualTo(sessionId);
			assertThat(seen.headers().getFirst("MCP-Protocol-Version")).as("protocol version on every later request")
				.isEqualTo(negotiated);
		});
	}

	@Test
	void deleteThroughTheRelayEndsTheSession() {
		McpSyncClient relayed = client("http://127.0.0.1:" + port, "/mcp/sdk", null);
		relayed.initialize();
		relayed.listTools();
		String sessionId = upstream.seen().get(upstream.seen().size() - 1).headers().getFirst("Mcp-Session-Id");

		relayed.closeGracefully();
		clients.remove(relayed);

		assertThat(upstream.seen()).as("the client's DELETE reached the upstream with the session id")
			.anySatisfy(seen -> {
				assertThat(seen.method()).isEqualTo("DELETE");
				assertThat(seen.headers().getFirst("Mcp-Session-Id")).isEqualTo(sessionId);
			});
		HttpResponse<String> afterDelete = http().send(http().post("sdk", RawHttp.toolsCall(9, "echo"))
			.header("Mcp-Session-Id", sessionId)
			.header("MCP-Protocol-Version", "2025-06-18"));
		assertThat(afterDelete.statusCode()).as("the ended session is unknown upstream, relayed as 404").isEqualTo(404);
	}

	@Test
	void progressReachesTheClientWhileTheUpstreamStillHoldsTheStream() {
		List<McpSchema.ProgressNotification> progress = new CopyOnWriteArrayList<>();
		McpSyncClient relayed = client("http://127.0.0.1:" + port, "/mcp/sdk", notification -> {
			progress.add(notification);
			// The upstream sends the rest only after the first event reached the client: a relay that buffered
			// the stream would never deliver it, and the tool would answer "never released".
			upstream.releaseProgress();
		});
		relayed.initialize();

		McpSchema.CallToolResult result = relayed.callTool(
				McpSchema.CallToolRequest.builder().name("progress").arguments(Map.of()).progressToken("tok-1").build());

		assertThat(result.isError()).as("the tool was released by the first progress event").isNotEqualTo(Boolean.TRUE);
		assertThat(((McpSchema.TextContent) result.content().get(0)).text()).isEqualTo("done");
		// The SDK client hands notifications to its consumer on several threads, so their order here is not the
		// wire order, and the last may arrive after callTool returned; SseRelayFidelityTest proves the relay keeps
		// the wire order byte for byte.
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(progress).extracting(McpSchema.ProgressNotification::message)
				.containsExactlyInAnyOrder("first", "second", "third"));
		assertThat(progress).allSatisfy(p -> assertThat(p.progressToken()).isEqualTo("tok-1"));
	}

	private McpSyncClient client(String base, String endpoint,
			java.util.function.Consumer<McpSchema.ProgressNotification> progress) {
		HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(base)
			.endpoint(endpoint)
			.build();
		McpClient.SyncSpec spec = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(20));
		if (progress != null) {
			spec.progressConsumer(progress);
		}
		McpSyncClient client = spec.build();
		clients.add(client);
		return client;
	}

}
