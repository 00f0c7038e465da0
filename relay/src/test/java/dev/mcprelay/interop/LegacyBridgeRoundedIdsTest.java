package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * Ids a double rounds, on the legacy HTTP+SSE bridge, against a server that reads every body with JSON.parse
 * ({@code interop/json-rpc-server.mjs} over its {@code /sse} face): it answers {@code 9007199254740993} under
 * {@code 9007199254740992}. The bridge routes answers by id across every POST of a session, so it compares ids as the
 * server reads them: an answer under the rounded id reaches the request that had it, under the id its client sent, and
 * a POST whose id the server could not tell from one still waiting is refused (409) instead of having its answer meet
 * the other request's stage. The server holds a call's answer until the session's next ping, so that the second POST
 * comes while the first waits, whatever the machine's pace.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class LegacyBridgeRoundedIdsTest {

	private static final String TWO_POW_53 = "9007199254740992";

	private static final String TWO_POW_53_PLUS_ONE = "9007199254740993";

	private static NodePeers.NodeServer node;

	@LocalServerPort
	int port;

	@BeforeAll
	static void startNodeServer() throws Exception {
		NodePeers.requireNode();
		node = NodePeers.startServer("json-rpc-server.mjs");
	}

	@AfterAll
	static void stopNodeServer() throws Exception {
		if (node != null) {
			node.close();
		}
	}

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.legacy.url", () -> "http://127.0.0.1:" + node.port() + "/sse");
		registry.add("mcp-relay.servers.legacy.transport", () -> "sse");
		registry.add("mcp-relay.servers.legacy.tools.deny[0]", () -> "secret_*");
		registry.add("mcp-relay.servers.legacy.timeouts.non-streaming", () -> "5s");
	}

	@Test
	void anAnswerUnderTheIdTheServerRoundedReachesItsRequestUnderTheClientsId() {
		McpSession session = McpSession.open(new RawHttp(port), "legacy");

		HttpResponse<String> called = session.post(RawHttp.toolsCall(Long.parseLong(TWO_POW_53_PLUS_ONE), "echo"));

		assertThat(called.statusCode()).as(called.body()).isEqualTo(200);
		assertThat(called.body()).as("the id the client sent, not the server's " + TWO_POW_53)
			.contains("\"id\":" + TWO_POW_53_PLUS_ONE)
			.doesNotContain(TWO_POW_53 + ",")
			.contains("the secret of echo");
	}

	@Test
	void aRequestWhoseIdTheServerCannotTellFromOneWaitingIsRefusedNotAnsweredWithTheOther() throws Exception {
		McpSession session = McpSession.open(new RawHttp(port), "legacy");
		nodeCalls("DELETE");
		CompletableFuture<HttpResponse<String>> held = CompletableFuture.supplyAsync(() -> session
			.post("{\"jsonrpc\":\"2.0\",\"id\":" + TWO_POW_53 + ",\"method\":\"tools/call\",\"params\":{\"name\":"
					+ "\"echo\",\"arguments\":{\"holdUntilPing\":true}}}"));
		// the relay registers a POST's ids before it sends it: once the server has the call, the relay waits for it
		await().atMost(Duration.ofSeconds(10)).until(() -> nodeCalls("GET").contains("holdUntilPing"));

		HttpResponse<String> listed = session
			.post("{\"jsonrpc\":\"2.0\",\"id\":" + TWO_POW_53_PLUS_ONE + ",\"method\":\"tools/list\"}");
		HttpResponse<String> pinged = session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
		HttpResponse<String> called = held.get(10, TimeUnit.SECONDS);

		assertThat(listed.statusCode()).as("one id to the server: " + listed.body()).isEqualTo(409);
		assertThat(RawHttp.json(listed.body()).at("/error/data/reason").asText()).isEqualTo("request_id_in_flight");
		assertThat(pinged.statusCode()).isEqualTo(200);
		JsonNode call = RawHttp.json(called.body());
		assertThat(called.statusCode()).as(called.body()).isEqualTo(200);
		assertThat(call.get("id").asText()).isEqualTo(TWO_POW_53);
		assertThat(call.at("/result/content/0/text").asText()).as("the call's own answer, not the list")
			.startsWith("the secret of echo");
		assertThat(called.body()).doesNotContain("secret_admin").doesNotContain("\"tools\"");
	}

	@Test
	void aRequestCarryingAProgressTokenAnotherWaitingRequestCarriesIsRefusedSoNoProgressGoesAstray() throws Exception {
		McpSession session = McpSession.open(new RawHttp(port), "legacy");
		nodeCalls("DELETE");
		CompletableFuture<HttpResponse<String>> held = CompletableFuture.supplyAsync(() -> session
			.post("{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
					+ "\"arguments\":{\"holdUntilPing\":true},\"_meta\":{\"progressToken\":" + TWO_POW_53 + "}}}"));
		await().atMost(Duration.ofSeconds(10)).until(() -> nodeCalls("GET").contains("holdUntilPing"));

		HttpResponse<String> second = session.post("{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"echo\",\"arguments\":{},\"_meta\":{\"progressToken\":" + TWO_POW_53_PLUS_ONE
				+ "}}}");
		HttpResponse<String> pinged = session.post("{\"jsonrpc\":\"2.0\",\"id\":23,\"method\":\"ping\"}");
		HttpResponse<String> called = held.get(10, TimeUnit.SECONDS);

		assertThat(second.statusCode()).as("one token to the server: " + second.body()).isEqualTo(409);
		assertThat(RawHttp.json(second.body()).at("/error/data/reason").asText()).isEqualTo("progress_token_in_flight");
		assertThat(RawHttp.json(nodeCalls("GET")).size()).as("the held call only: nothing of the refused POST sent")
			.isEqualTo(1);
		assertThat(pinged.statusCode()).isEqualTo(200);
		assertThat(called.statusCode()).as(called.body()).isEqualTo(200);
		assertThat(RawHttp.json(called.body()).get("id").asInt()).isEqualTo(21);
	}

	/** The tool calls the Node server executed ({@code GET}), or forgets them ({@code DELETE}). */
	private static String nodeCalls(String method) {
		try {
			return HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + "/calls"))
					.method(method, HttpRequest.BodyPublishers.noBody())
					.build(), HttpResponse.BodyHandlers.ofString())
				.body();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
