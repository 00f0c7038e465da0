package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.transport.UpstreamRequest;

/**
 * A bridged session's messages each way: a 2025 client's request carries the envelope 2026-07-28 requires, and a
 * 2026 server's answer reaches the client without the new generation's fields, a request for input refused as such.
 */
class SessionResultsTest {

	@Test
	void aResultLosesTheNewGenerationsFieldsAndKeepsTheRest() throws Exception {
		ObjectNode answer = json("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[],\"resultType\":\"complete\","
				+ "\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\"},"
				+ "\"x\":1}}}");
		JsonNode turned = SessionResults.toSession(answer, "s");
		assertThat(turned.toString()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[],\"_meta\":{\"x\":1}}}");
	}

	@Test
	void aRequestForInputIsRefusedAsOneTheClientCannotAnswerYet() throws Exception {
		ObjectNode answer = json("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{\"resultType\":\"input_required\","
				+ "\"inputRequests\":{\"r\":{\"method\":\"sampling/createMessage\"}},\"requestState\":\"opaque\"}}");
		JsonNode turned = SessionResults.toSession(answer, "s");
		assertThat(turned.path("id").asText()).isEqualTo("a");
		assertThat(turned.has("result")).isFalse();
		assertThat(turned.at("/error/code").asInt()).isEqualTo(-32603);
		assertThat(turned.at("/error/data/reason").asText()).isEqualTo("input_required_not_bridged");
	}

	@Test
	void aRequestCarriesTheEnvelopeAndItsNamesInHeaders() throws Exception {
		HttpHeaders relayed = new HttpHeaders();
		relayed.set("Mcp-Session-Id", "mcp-bridge-x");
		relayed.set("MCP-Protocol-Version", "2025-11-25");
		relayed.set("X-Tenant", "t");
		UpstreamRequest request = new UpstreamRequest("s", HttpMethod.POST, URI.create("http://127.0.0.1:1/mcp"),
				relayed, new byte[0], "alice", null);
		BridgedClient client = new BridgedClient("2025-11-25", json("{\"name\":\"c\",\"version\":\"1\"}"),
				json("{\"roots\":{}}"), json("{}"));
		UpstreamRequest modern = ModernRequests.of(request, json("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"héllo\",\"_meta\":{\"progressToken\":7}}}"), client, null);

		JsonNode body = JsonRpcParser.mapper().readTree(modern.body());
		assertThat(body.at("/params/_meta/progressToken").asInt()).as("the client's own _meta is kept").isEqualTo(7);
		assertThat(body.at("/params/_meta/io.modelcontextprotocol~1protocolVersion").asText()).isEqualTo("2026-07-28");
		assertThat(body.at("/params/_meta/io.modelcontextprotocol~1clientInfo/name").asText()).isEqualTo("c");
		assertThat(body.at("/params/_meta/io.modelcontextprotocol~1clientCapabilities").has("roots")).isTrue();
		assertThat(modern.headers().getFirst("Mcp-Session-Id")).as("the relay's session stays with the client").isNull();
		assertThat(modern.headers().getFirst("MCP-Protocol-Version")).isEqualTo("2026-07-28");
		assertThat(modern.headers().getFirst("Mcp-Method")).isEqualTo("tools/call");
		assertThat(modern.headers().getFirst("Mcp-Name")).as("not plain ASCII: base64")
			.isEqualTo("=?base64?" + java.util.Base64.getEncoder().encodeToString("héllo".getBytes(StandardCharsets.UTF_8))
					+ "?=");
		assertThat(modern.headers().getFirst("X-Tenant")).isEqualTo("t");
	}

	private static ObjectNode json(String text) throws Exception {
		return (ObjectNode) JsonRpcParser.mapper().readTree(text);
	}

}
