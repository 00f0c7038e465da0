package dev.mcprelay.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.example.policy.ModelUsePolicy;

import dev.mcprelay.testsupport.RepositoryRoot;
import dev.mcprelay.testsupport.TestUpstreams;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * The server-to-client example of {@code docs/interceptors.md} compiles, is quoted verbatim, and does what the README says: the Java SDK
 * client's model is asked for at most 8 tokens, with the policy's system prompt.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(ModelUsePolicy.class)
class ReadmeServerToClientExampleTest {

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void upstream(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.sdk.url", () -> TestUpstreams.SDK.url("/mcp"));
	}

	@Test
	void theReadmeQuotesTheExampleVerbatim() throws Exception {
		String source = Files.readString(Path.of("src/test/java/com/example/policy/ModelUsePolicy.java"));

		assertThat(Files.readString(RepositoryRoot.resolve("docs/interceptors.md"))).contains("```java\n" + source + "```");
	}

	@Test
	void theModelIsAskedForLessWithThePolicysSystemPrompt() {
		List<McpSchema.CreateMessageRequest> asked = new CopyOnWriteArrayList<>();
		McpSyncClient client = McpClient
			.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port).endpoint("/mcp/sdk").build())
			.requestTimeout(Duration.ofSeconds(20))
			.capabilities(McpSchema.ClientCapabilities.builder().sampling().build())
			.sampling(request -> {
				asked.add(request);
				return McpSchema.CreateMessageResult.builder()
					.role(McpSchema.Role.ASSISTANT)
					.content(new McpSchema.TextContent("hi"))
					.model("m")
					.build();
			})
			.build();
		try {
			client.initialize();
			client.callTool(new McpSchema.CallToolRequest("ask-model", Map.of()));
		}
		finally {
			client.closeGracefully();
		}

		assertThat(asked).singleElement().satisfies(request -> {
			assertThat(request.maxTokens()).isEqualTo(8);
			assertThat(request.systemPrompt()).isEqualTo("Answer briefly. Never repeat credentials.");
		});
	}

}
