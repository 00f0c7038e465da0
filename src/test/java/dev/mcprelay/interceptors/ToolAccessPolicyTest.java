package dev.mcprelay.interceptors;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * {@code tools.allow} / {@code tools.deny}: hidden tools vanish from tools/list (JSON and SSE answers) and a call of
 * one is refused with -32602 before anything goes upstream. {@code sdk-tools} denies {@code secret_*};
 * {@code sdk-json-tools} allows {@code echo} and {@code secret_*} but denies {@code secret_admin}.
 */
class ToolAccessPolicyTest extends InterceptorIntegrationTest {

	@ParameterizedTest(name = "{0} lists only {1}")
	@CsvSource(delimiter = ';', value = { "sdk-tools; echo progress", "sdk-json-tools; echo secret_audit",
			"sdk; echo secret_admin secret_audit progress" })
	void hiddenToolsVanishFromTheList(String server, String offered) {
		McpSession session = session(server);

		List<JsonNode> messages = messages(session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"));

		assertThat(messages.get(0).at("/result/tools").findValuesAsText("name"))
			.containsExactlyInAnyOrder(offered.split(" "));
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
			.isEqualTo("Unknown tool: " + tool + ". Server '" + server + "' does not offer it through this relay.");
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
				.containsExactlyInAnyOrder("echo", "progress");
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
