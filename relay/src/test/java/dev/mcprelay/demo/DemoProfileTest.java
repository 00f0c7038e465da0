package dev.mcprelay.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;

/** The newcomer's first run: the demo profile relays /mcp/demo to the built-in demo server, for a real MCP client. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.DEFINED_PORT)
@ActiveProfiles("demo")
class DemoProfileTest {

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void port(DynamicPropertyRegistry registry) {
		// The demo upstream URL is built from server.port, so the port must be fixed before start-up.
		int free = freePort();
		registry.add("server.port", () -> free);
	}

	@Test
	void aRealClientInitializesListsAndCallsBothToolsThroughTheRelay() {
		List<McpSchema.ProgressNotification> progress = new CopyOnWriteArrayList<>();
		McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
			.endpoint("/mcp/demo")
			.build()).requestTimeout(Duration.ofSeconds(20)).progressConsumer(progress::add).build();
		try {
			McpSchema.InitializeResult init = client.initialize();
			assertThat(init.serverInfo().name()).isEqualTo("mcp-relay-demo");

			assertThat(client.listTools().tools()).extracting(McpSchema.Tool::name).containsExactly("echo", "countdown");

			McpSchema.CallToolResult echo = client.callTool(
					McpSchema.CallToolRequest.builder().name("echo").arguments(Map.of("message", "hello")).build());
			assertThat(((McpSchema.TextContent) echo.content().get(0)).text()).isEqualTo("hello");

			McpSchema.CallToolResult countdown = client.callTool(McpSchema.CallToolRequest.builder()
				.name("countdown")
				.arguments(Map.of("from", 2))
				.progressToken("demo-token")
				.build());
			assertThat(((McpSchema.TextContent) countdown.content().get(0)).text()).contains("Lift-off");
			// The SDK client hands notifications over on its own threads: the last may land after callTool returned.
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(progress).as("progress streamed over SSE").hasSize(2));
		}
		finally {
			client.closeGracefully();
		}
	}

	private static int freePort() {
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

}
