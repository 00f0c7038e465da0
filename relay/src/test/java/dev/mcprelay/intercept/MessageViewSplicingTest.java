package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.RequestHeaders;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import io.modelcontextprotocol.spec.McpSchema;

/** Setters write into the message's own JSON, so whatever no type models survives a change. */
class MessageViewSplicingTest {

	private static final CallContext CONTEXT = new CallContext("test", RequestHeaders.empty());

	@Test
	void toolsKeptFromTheListKeepTheirJsonAndNewOnesAreEncodedFromTheirType() throws Exception {
		ObjectNode message = parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":["
				+ "{\"name\":\"a\",\"inputSchema\":{\"type\":\"object\"},\"x-new-spec-field\":{\"n\":1.50}},"
				+ "{\"name\":\"b\",\"inputSchema\":{\"type\":\"object\"}}],\"_meta\":{\"k\":\"v\"}}}");
		ToolsListResponse list = new ToolsListResponse(CONTEXT, message, null);

		List<McpSchema.Tool> tools = new ArrayList<>(list.tools());
		tools.remove(1);
		tools.add(McpSchema.Tool.builder().name("c").inputSchema(Map.of("type", "object")).build());
		list.setTools(tools);

		assertThat(list.isChanged()).isTrue();
		assertThat(new String(JsonRpcErrors.toBytes(message), StandardCharsets.UTF_8)).isEqualTo(
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":["
						+ "{\"name\":\"a\",\"inputSchema\":{\"type\":\"object\"},\"x-new-spec-field\":{\"n\":1.50}},"
						+ "{\"name\":\"c\",\"inputSchema\":{\"type\":\"object\"}}],\"_meta\":{\"k\":\"v\"}}}");
	}

	@Test
	void removingNothingChangesNothing() throws Exception {
		ToolsListResponse list = new ToolsListResponse(CONTEXT,
				parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"a\",\"inputSchema\":{}}]}}"), null);

		list.removeToolsIf(tool -> tool.name().equals("z"));

		assertThat(list.isChanged()).as("an unchanged message is relayed byte for byte").isFalse();
	}

	@Test
	void gettersHandOutCopies() throws Exception {
		ObjectNode message = parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"echo\",\"arguments\":{\"message\":\"m\"}}}");
		ToolsCallRequest call = new ToolsCallRequest(CONTEXT, message);

		call.arguments().put("message", "changed behind the view's back");
		call.params().put("name", "other");
		call.json().put("id", 2);

		assertThat(call.isChanged()).isFalse();
		assertThat(message.toString()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"echo\",\"arguments\":{\"message\":\"m\"}}}");
	}

	@Test
	void argumentsSetterCreatesWhatIsMissingAndLeavesTheRest() throws Exception {
		ObjectNode message = parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"_meta\":{\"progressToken\":7}}}");
		ToolsCallRequest call = new ToolsCallRequest(CONTEXT, message);

		call.setArgument("tenant", "blue");
		call.removeArgument("absent");

		assertThat(message.toString()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"echo\",\"_meta\":{\"progressToken\":7},\"arguments\":{\"tenant\":\"blue\"}}}");
	}

	@Test
	void paramsThatDoNotFitTheirTypeAreInvalidParams() throws Exception {
		ToolsCallRequest call = new ToolsCallRequest(CONTEXT,
				parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":[1,2]}}"));

		assertThatThrownBy(call::arguments).isInstanceOfSatisfying(RejectError.class,
				error -> assertThat(error.code()).isEqualTo(-32602));
	}

	private static ObjectNode parse(String json) throws Exception {
		return (ObjectNode) JsonRpcParser.mapper().readTree(json);
	}

}
