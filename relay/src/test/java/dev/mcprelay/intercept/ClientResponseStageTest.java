package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;

/**
 * The client-response stage, through the relay between the Java SDK's client and server: the client's answer to the
 * server's {@code sampling/createMessage} meets it with the server's request at hand (method and params), can be
 * changed or refused before the server gets it, and the server always gets its own request id back.
 */
class ClientResponseStageTest extends InterceptorIntegrationTest {

	private final List<McpSyncClient> clients = new CopyOnWriteArrayList<>();

	private final List<String> idsTheClientSaw = new CopyOnWriteArrayList<>();

	@AfterEach
	void closeClients() {
		clients.forEach(McpSyncClient::closeGracefully);
	}

	@Test
	void theAnswerMeetsTheStageWithTheServerRequestAtHandAndCanBeChanged() {
		List<ObjectNode> params = new CopyOnWriteArrayList<>();
		script.on("first", Stage.CLIENT_RESPONSE, response -> {
			assertThat(response.serverRequestMethod()).isEqualTo("sampling/createMessage");
			params.add(response.serverRequestParams());
			assertThat(response.result().at("/content/text").asText()).isEqualTo("hello from the client");
			response.replaceResult(McpSchema.CreateMessageResult.builder()
				.role(McpSchema.Role.ASSISTANT)
				.content(new McpSchema.TextContent("[checked] hello"))
				.model("client-model")
				.build());
			return Outcome.proceed();
		});

		McpSchema.CallToolResult result = client("sdk").callTool(new McpSchema.CallToolRequest("ask-model", Map.of()));

		assertThat(((McpSchema.TextContent) result.content().get(0)).text()).isEqualTo("model said: [checked] hello");
		assertThat(params).singleElement().satisfies(p -> {
			assertThat(p.path("maxTokens").asInt()).isEqualTo(16);
			assertThat(p.at("/messages/0/content/text").asText()).isEqualTo("Say hello");
		});
		assertThat(idsTheClientSaw).as("the request rides in the id the client sees")
			.allMatch(id -> id.startsWith(ServerRequestIds.PREFIX));
	}

	@Test
	void aRefusedAnswerReachesTheServerAsAnError() {
		script.on("first", Stage.CLIENT_RESPONSE,
				response -> Outcome.reject(RejectError.policy("the user's answer is not allowed")));

		McpSchema.CallToolResult result = client("sdk").callTool(new McpSchema.CallToolRequest("ask-model", Map.of()));

		assertThat(result.isError()).isTrue();
		assertThat(((McpSchema.TextContent) result.content().get(0)).text()).contains("the user's answer is not allowed");
	}

	@Test
	void anAnswerRefusedAtTheUserRequestStageStillAnswersTheServer() {
		script.on("second", Stage.USER_REQUEST,
				message -> message.kind() == dev.mcprelay.api.jsonrpc.JsonRpcMessage.Kind.RESPONSE
						? Outcome.reject(RejectError.policy("answers to the server are not allowed")) : Outcome.proceed());

		McpSchema.CallToolResult result = client("sdk").callTool(new McpSchema.CallToolRequest("ask-model", Map.of()));

		assertThat(result.isError()).as("the server got the refusal as its answer, not silence").isTrue();
		assertThat(((McpSchema.TextContent) result.content().get(0)).text())
			.contains("answers to the server are not allowed");
	}

	@Test
	void aClientsCancellationOfAServerRequestReachesTheServerUnderItsOwnId() {
		// The scripted upstream shows exactly which id reached it.
		TestUpstreams.SCRIPTED.script((request, response) -> request.method().name().equals("POST")
				? response.status(202).send()
				: response.status(200)
					.header("Content-Type", "text/event-stream")
					.sendString(Mono.just("id: g-1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-7\","
							+ "\"method\":\"elicitation/create\",\"params\":{\"message\":\"Your email?\"}}\n\n")));
		String stream = http().send(http().request("scripted")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", "s-1")
			.GET()).body();
		String relayId = RawHttp.sseData(stream).get(0).get("id").asText();

		http().send(http().post("scripted", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
				+ "{\"requestId\":\"" + relayId + "\"}}").header("Mcp-Session-Id", "s-1"));

		assertThat(relayId).startsWith(ServerRequestIds.PREFIX);
		assertThat(RawHttp.json(TestUpstreams.SCRIPTED.lastSeen().body()).at("/params/requestId").asText())
			.as("the server can only cancel a request it knows by its own id").isEqualTo("srv-7");
		assertThat(script.seenBy("first")).as("the client-notification stage sees the server's id too")
			.contains("client-notification notifications/cancelled");
	}

	private McpSyncClient client(String server) {
		McpSyncClient client = McpClient
			.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port).endpoint("/mcp/" + server).build())
			.requestTimeout(Duration.ofSeconds(20))
			.capabilities(McpSchema.ClientCapabilities.builder().sampling().build())
			.sampling(request -> McpSchema.CreateMessageResult.builder()
				.role(McpSchema.Role.ASSISTANT)
				.content(new McpSchema.TextContent("hello from the client"))
				.model("client-model")
				.build())
			.build();
		clients.add(client);
		client.initialize();
		script.on("first", Stage.USER_REQUEST, message -> {
			if (message.kind() == dev.mcprelay.api.jsonrpc.JsonRpcMessage.Kind.RESPONSE) {
				idsTheClientSaw.add(message.id().asText());
			}
			return Outcome.proceed();
		});
		return client;
	}

}
