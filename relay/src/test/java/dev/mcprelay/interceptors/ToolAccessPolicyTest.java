package dev.mcprelay.interceptors;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;

/**
 * {@code tools.allow} / {@code tools.deny}: hidden tools vanish from tools/list (JSON and SSE answers) and a call of
 * one is refused with -32602 before anything goes upstream. {@code sdk-tools} denies {@code secret_*};
 * {@code sdk-json-tools} allows {@code echo} and {@code secret_*} but denies {@code secret_admin}.
 */
class ToolAccessPolicyTest extends InterceptorIntegrationTest {

	@ParameterizedTest(name = "{0} lists only {1}")
	@CsvSource(delimiter = ';', value = { "sdk-tools; echo progress ask-model whoami", "sdk-json-tools; echo secret_audit",
			"sdk; echo secret_admin secret_audit progress ask-model whoami" })
	void hiddenToolsVanishFromTheList(String server, String offered) {
		McpSession session = session(server);

		List<JsonNode> messages = messages(session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"));

		assertThat(messages.get(0).at("/result/tools").findValuesAsText("name"))
			.containsExactlyInAnyOrder(offered.split(" "));
	}

	@ParameterizedTest(name = "a tools/list result on a {0} hides denied tools too")
	@ValueSource(strings = { "GET stream", "GET stream resumed with Last-Event-ID" })
	void hiddenToolsVanishFromAListResultThatArrivesOnAGetStream(String how) {
		// No real server answers tools/list on a GET stream unasked; one that replays a POST stream on resumption does.
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "text/event-stream")
			.sendString(Mono.just("id: e-4\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":["
					+ "{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}},"
					+ "{\"name\":\"secret_admin\",\"inputSchema\":{\"type\":\"object\"}}],\"nextCursor\":\"c2\"}}\n\n")));
		java.net.http.HttpRequest.Builder get = http().request("scripted-tools").header("Accept", "text/event-stream");
		if (how.contains("Last-Event-ID")) {
			get.header("Last-Event-ID", "e-3");
		}

		String body = http().send(get.GET()).body();

		JsonNode result = RawHttp.sseData(body).get(0);
		assertThat(result.at("/result/tools").findValuesAsText("name")).as("the denied tool is gone")
			.containsExactly("echo");
		assertThat(result.at("/result/nextCursor").asText()).as("the rest of the result is kept").isEqualTo("c2");
		assertThat(body).as("the event keeps its id").startsWith("id: e-4\n");
	}

	@ParameterizedTest(name = "{0}: a call of hidden {1} is refused with -32602 and never forwarded")
	@CsvSource({ "sdk-tools, secret_admin", "sdk-tools, secret_audit", "sdk-json-tools, secret_admin",
			"sdk-json-tools, slow" })
	void callOfAHiddenToolIsRefused(String server, String tool) {
		McpSession session = session(server);

		HttpResponse<String> response = session.post(RawHttp.toolsCall(2, tool));

		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode body = RawHttp.json(response.body());
		assertThat(body.path("id").asInt()).isEqualTo(2);
		assertThat(body.at("/error/code").asInt()).isEqualTo(-32602);
		assertThat(body.at("/error/message").asText())
			.isEqualTo("Unknown tool: " + tool);
		assertThat(upstreamReceived("tools/call")).as("never forwarded").isEmpty();
	}

	@ParameterizedTest(name = "{0}: a call of offered {1} goes through")
	@CsvSource({ "sdk-tools, echo", "sdk-json-tools, echo", "sdk-json-tools, secret_audit", "sdk, secret_admin" })
	void callOfAnOfferedToolGoesThrough(String server, String tool) {
		McpSession session = session(server);

		HttpResponse<String> response = session.post(RawHttp.toolsCall(3, tool));

		assertThat(messages(response)).singleElement()
			.satisfies(message -> assertThat(message.has("result")).as(message.toString()).isTrue());
		assertThat(upstreamReceived("tools/call")).hasSize(1);
	}

	@Test
	void aRealMcpClientSeesOnlyTheOfferedTools() {
		HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
			.builder("http://127.0.0.1:" + port)
			.endpoint("/mcp/sdk-tools")
			.build();
		try (McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(20)).build()) {
			client.initialize();

			assertThat(client.listTools().tools()).extracting(McpSchema.Tool::name)
				.containsExactlyInAnyOrder("echo", "progress", "ask-model", "whoami");
			McpSchema.CallToolResult refused = null;
			try {
				refused = client.callTool(McpSchema.CallToolRequest.builder().name("secret_admin").build());
			}
			catch (RuntimeException expected) {
				assertThat(expected).hasMessageContaining("Unknown tool: secret_admin");
			}
			assertThat(refused).as("the call was refused, not answered").isNull();
		}
	}

}
