package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * The server-request stages, through the relay between the Java SDK's client and server: the SDK server's
 * {@code ask-model} tool asks the client's model for a completion ({@code sampling/createMessage}). The
 * sampling-request stage sees it (and the catch-all does not); what its setters change is what the client's
 * sampling handler receives; a respond answers the server without the client; a rejection is answered to the server.
 */
class ServerRequestStagesTest extends InterceptorIntegrationTest {

	private final List<McpSchema.CreateMessageRequest> sampled = new CopyOnWriteArrayList<>();

	private final List<McpSyncClient> clients = new CopyOnWriteArrayList<>();

	@AfterEach
	void closeClients() {
		clients.forEach(McpSyncClient::closeGracefully);
	}

	@Test
	void aChangedSamplingRequestReachesTheClientChanged() {
		script.on("first", Stage.SAMPLING_REQUEST, request -> {
			assertThat(request.maxTokens()).isEqualTo(16);
			assertThat(request.messages()).hasSize(1);
			request.setSystemPrompt("Answer in one word.");
			request.setMaxTokens(4);
			request.setModelPreferences(McpSchema.ModelPreferences.builder().addHint("small-model").build());
			request.setMessages(List.of(new McpSchema.SamplingMessage(McpSchema.Role.USER,
					new McpSchema.TextContent("Say hello, redacted"))));
			return Outcome.proceed();
		});

		McpSchema.CallToolResult result = client("sdk").callTool(new McpSchema.CallToolRequest("ask-model", Map.of()));

		assertThat(text(result)).isEqualTo("model said: hello from the client");
		assertThat(sampled).singleElement().satisfies(request -> {
			assertThat(request.systemPrompt()).isEqualTo("Answer in one word.");
			assertThat(request.maxTokens()).isEqualTo(4);
			assertThat(request.modelPreferences().hints()).extracting(McpSchema.ModelHint::name)
				.containsExactly("small-model");
			assertThat(((McpSchema.TextContent) request.messages().get(0).content()).text())
				.isEqualTo("Say hello, redacted");
		});
		assertThat(script.seenBy("first")).contains("sampling-request sampling/createMessage")
			.noneMatch(seen -> seen.startsWith("server-request"))
			.noneMatch(seen -> seen.startsWith("elicitation-request"));
	}

	@Test
	void aRespondAnswersTheServerAndTheClientNeverSeesTheRequest() {
		script.on("first", Stage.SAMPLING_REQUEST, request -> Outcome.respond(McpSchema.CreateMessageResult.builder()
			.role(McpSchema.Role.ASSISTANT)
			.content(new McpSchema.TextContent("the relay's answer"))
			.model("policy")
			.build()));

		McpSchema.CallToolResult result = client("sdk").callTool(new McpSchema.CallToolRequest("ask-model", Map.of()));

		assertThat(text(result)).isEqualTo("model said: the relay's answer");
		assertThat(sampled).as("the client's model was never asked").isEmpty();
		List<JsonNode> answers = upstream.seen()
			.stream()
			.filter(seen -> seen.method().equals("POST"))
			.map(dev.mcprelay.testsupport.SdkMcpUpstream.Seen::json)
			.filter(body -> body.has("result") && !body.has("method"))
			.toList();
		assertThat(answers).singleElement()
			.satisfies(answer -> assertThat(answer.at("/result/model").asText()).isEqualTo("policy"));
	}

	@Test
	void aRejectionIsTheToolsAnswerAndTheClientNeverSeesTheRequest() {
		script.on("first", Stage.SAMPLING_REQUEST,
				request -> Outcome.reject(RejectError.policy("no sampling for this tenant")));

		McpSchema.CallToolResult result = client("sdk").callTool(new McpSchema.CallToolRequest("ask-model", Map.of()));

		assertThat(result.isError()).isTrue();
		assertThat(text(result)).contains("no sampling for this tenant");
		assertThat(sampled).isEmpty();
	}

	private McpSyncClient client(String server) {
		HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
			.builder("http://127.0.0.1:" + port)
			.endpoint("/mcp/" + server)
			.build();
		McpSyncClient client = McpClient.sync(transport)
			.requestTimeout(Duration.ofSeconds(20))
			.capabilities(McpSchema.ClientCapabilities.builder().sampling().build())
			.sampling(request -> {
				sampled.add(request);
				return McpSchema.CreateMessageResult.builder()
					.role(McpSchema.Role.ASSISTANT)
					.content(new McpSchema.TextContent("hello from the client"))
					.model("client-model")
					.build();
			})
			.build();
		clients.add(client);
		client.initialize();
		return client;
	}

	private static String text(McpSchema.CallToolResult result) {
		return ((McpSchema.TextContent) result.content().get(0)).text();
	}

}
