package dev.mcprelay.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * The scan that lets the answer to a request pass unread accepts only what the full parser accepts as that request's
 * response, and sends everything else (another id, a request or notification, a batch, anything malformed) to the
 * full parse.
 */
class ResponseScanTest {

	private static final JsonNode ONE = IntNode.valueOf(1);

	@Test
	void theAnswerToTheRequestPasses() {
		for (String json : List.of("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}",
				"{\"result\":[1,2],\"id\":1,\"jsonrpc\":\"2.0\"}", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}",
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"no\"}}",
				" {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"_meta\":{\"x\":[{}]}} \n")) {
			assertThat(ResponseScan.answers(bytes(json), ONE)).as(json).isTrue();
			assertThat(fullParserSeesTheAnswer(json, ONE)).as("the full parser agrees: " + json).isTrue();
		}
		assertThat(ResponseScan.answers(bytes("{\"jsonrpc\":\"2.0\",\"id\":\"a-1\",\"result\":{}}"), TextNode.valueOf("a-1")))
			.isTrue();
	}

	@Test
	void everythingElseTakesTheFullParse() {
		for (String json : List.of("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}", "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}",
				"{\"jsonrpc\":\"2.0\",\"id\":1.0,\"result\":{}}", "{\"jsonrpc\":\"2.0\",\"result\":{}}",
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sampling/createMessage\"}",
				"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}",
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{}}", "{\"jsonrpc\":\"2.0\",\"id\":1}",
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"no\"}", "{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":{}}",
				"{\"id\":1,\"result\":{}}", "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":1,\"result\":{}}",
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":1,\"a\":2}}",
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} {}", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]",
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":}}",
				"not json", "")) {
			assertThat(ResponseScan.answers(bytes(json), ONE)).as(json).isFalse();
		}
	}

	private static boolean fullParserSeesTheAnswer(String json, JsonNode id) {
		try {
			JsonRpcPayload payload = JsonRpcParser.parse(bytes(json));
			JsonRpcMessage message = payload.messages().get(0);
			return !payload.batch() && message.kind() == JsonRpcMessage.Kind.RESPONSE && id.equals(message.id());
		}
		catch (JsonRpcParseException ex) {
			return false;
		}
	}

	private static byte[] bytes(String json) {
		return json.getBytes(StandardCharsets.UTF_8);
	}

}
