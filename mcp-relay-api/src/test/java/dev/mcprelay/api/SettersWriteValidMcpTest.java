package dev.mcprelay.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcJson;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * What an author's setter writes is valid MCP, as the SDK's client reads it: a content block keeps its
 * {@code "type"} in a list, in a map and inside a record alike (a {@code List<TextContent>} written as it is lost it,
 * and the SDK's client refused the result).
 */
class SettersWriteValidMcpTest {

	private static final CallContext CONTEXT = new CallContext("github", RequestHeaders.of(Map.of()), Caller.ANONYMOUS);

	@Test
	void setContentWritesContentBlocksTheSdkReads() throws Exception {
		ToolsCallResponse response = toolResult();

		response.setContent(List.of(new McpSchema.TextContent("[REDACTED]")));

		JsonNode result = response.json().get("result");
		assertThat(result.at("/content/0/type").asText()).isEqualTo("text");
		McpSchema.CallToolResult read = JsonRpcJson.mapper().treeToValue(result, McpSchema.CallToolResult.class);
		assertThat(((McpSchema.TextContent) read.content().get(0)).text()).isEqualTo("[REDACTED]");
	}

	@Test
	void aResultReplacedWithAMapOfContentBlocksKeepsTheirType() {
		ToolsCallResponse response = toolResult();

		response.replaceResult(Map.of("content", List.of(new McpSchema.TextContent("a"),
				new McpSchema.ImageContent(null, "aGk=", "image/png"))));

		assertThat(response.json().at("/result/content").findValuesAsText("type")).containsExactly("text", "image");
		assertThat(Outcome.respond(Map.of("content", List.of(new McpSchema.TextContent("b")))).block().result()
			.at("/content/0/type").asText()).isEqualTo("text");
	}

	/** What an author may hold content blocks in: a record whose component is typed {@code Object} or a supertype. */
	record Holder(List<Object> content, Object single, Object[] array, Map<String, Object> byName) {
	}

	record Typed(List<McpSchema.Content> content) {
	}

	@Test
	void contentBlocksKeepTheirTypeWhereverARecordHoldsThem() throws Exception {
		ToolsCallResponse response = toolResult();
		McpSchema.TextContent text = new McpSchema.TextContent("[REDACTED]");

		response.replaceResult(new Holder(List.of(text), text, new Object[] { text }, Map.of("one", text)));

		JsonNode result = response.json().get("result");
		assertThat(List.of("/content/0/type", "/single/type", "/array/0/type", "/byName/one/type"))
			.allSatisfy(where -> assertThat(result.at(where).asText()).as(where).isEqualTo("text"));
		McpSchema.CallToolResult read = JsonRpcJson.mapper().treeToValue(result, McpSchema.CallToolResult.class);
		assertThat(((McpSchema.TextContent) read.content().get(0)).text()).isEqualTo("[REDACTED]");
	}

	@Test
	void aBlockWhoseDeclaredTypeNamesItsKindCarriesItOnce() throws Exception {
		McpSchema.TextContent text = new McpSchema.TextContent("hi");

		assertThat(JsonRpcJson.mapper().writeValueAsString(new Typed(List.of(text))))
			.isEqualTo("{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}");
		assertThat(JsonRpcJson.mapper().writeValueAsString(text)).isEqualTo("{\"type\":\"text\",\"text\":\"hi\"}");
		assertThat(JsonRpcJson.toTree(McpSchema.CallToolResult.builder().content(List.of(text)).build()).toString())
			.contains("{\"type\":\"text\",\"text\":\"hi\"}");
	}

	@Test
	void promptMessagesAndPlainValuesAreWrittenAsBefore() {
		PromptsGetResponse prompt = new PromptsGetResponse(CONTEXT, message("{\"messages\":[]}"),
				new McpRequest(CONTEXT, message(null)));

		prompt.setMessages(List.of(new McpSchema.PromptMessage(McpSchema.Role.USER, new McpSchema.TextContent("hi"))));

		assertThat(prompt.json().at("/result/messages/0/content/type").asText()).isEqualTo("text");
		Map<String, Object> plain = new java.util.LinkedHashMap<>();
		plain.put("n", 1);
		plain.put("list", List.of("a", 2));
		plain.put("none", null);
		assertThat(MessageView.toJson(plain)).hasToString("{\"n\":1,\"list\":[\"a\",2],\"none\":null}");
	}

	private static ToolsCallResponse toolResult() {
		ObjectNode request = message(null);
		request.put("method", "tools/call");
		return new ToolsCallResponse(CONTEXT, message("{\"content\":[{\"type\":\"text\",\"text\":\"secret\"}]}"),
				new McpRequest(CONTEXT, request));
	}

	private static ObjectNode message(String result) {
		try {
			ObjectNode message = (ObjectNode) JsonRpcJson.mapper().readTree("{\"jsonrpc\":\"2.0\",\"id\":1}");
			if (result != null) {
				message.set("result", JsonRpcJson.mapper().readTree(result));
			}
			return message;
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
