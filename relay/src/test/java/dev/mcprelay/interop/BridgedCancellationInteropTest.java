package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.RawHttp;

/**
 * The version bridge, direction 2 (issue 46, review 46c finding 8): a 2026-07-28 client cancels a request by closing
 * its stream, and a 2025 server (the TypeScript SDK 1.x, {@code interop/ask-server.mjs}, which goes on with a request
 * whose connection closed) is told so as a 2025 client tells it: {@code notifications/cancelled} naming the id the
 * relay sent the request under, in the session. So too for a call held for the client's retry that expires; never for
 * a request the server answered.
 */
class BridgedCancellationInteropTest {

	private static AskServer server;

	private static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		server = new AskServer();
		relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.properties("server.port=0", "server.address=127.0.0.1", "mcp-relay.servers.v1.url=" + server.url(),
					"mcp-relay.servers.v1.protocol-versions=2025-11-25",
					"mcp-relay.servers.v1.timeouts.streaming-idle=3s")
			.run();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (server != null) {
			server.close();
		}
	}

	@Test
	void aClientThatClosesItsStreamCancelsTheCallAtTheServerAndAnAnsweredCallIsNeverCancelled() throws Exception {
		RawHttp http = new RawHttp(port());
		JsonNode echoed = RawHttp.messagesOf(http.send(modern(http, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}," + AskServer.meta("c1")
				+ "}}", "echo"))).get(0);
		assertThat(echoed.at("/result/content/0/text").asText()).as("%s", echoed).isEqualTo("hi");

		int started = server.stats().path("slowStarted").asInt();
		try (Socket client = AskServer.post(port(), "v1", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"slow\",\"arguments\":{}," + AskServer.meta("c1") + "}}", "tools/call",
				"slow")) {
			server.awaitStats("the call reached the server", stats -> stats.path("slowStarted").asInt() > started);
		}
		JsonNode stats = server.awaitStats("the server was told the call is cancelled",
				seen -> seen.path("slow").size() > 0);
		assertThat(stats.path("slow")).extracting(JsonNode::asText).as("%s", stats).containsExactly("cancelled");
		List<String> cancelled = calledTools(stats);
		assertThat(cancelled).as("one notifications/cancelled naming the slow call's id as sent, none the answered "
				+ "echo's: %s", stats).doesNotContain("echo", "?").containsOnlyOnce("slow");
		stats.path("cancelled").forEach(id -> assertThat(id.asText()).startsWith("mcp-relay-bridged-"));
	}

	@Test
	void aHeldCallThatExpiresIsCancelledAtTheServer() throws Exception {
		RawHttp http = new RawHttp(port());
		JsonNode asked = RawHttp.messagesOf(http.send(modern(http, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"ask\",\"arguments\":{}," + AskServer.meta("c2") + "}}",
				"ask"))).get(0);
		assertThat(asked.at("/result/resultType").asText()).as("%s", asked).isEqualTo("input_required");
		// no retry: past streaming-idle the call expires, and the server hears it is cancelled
		JsonNode stats = server.awaitStats("the expired call was cancelled at the server",
				seen -> seen.path("ask").size() > 0);
		assertThat(stats.path("ask")).extracting(JsonNode::asText).as("%s", stats).containsExactly("cancelled");
		assertThat(calledTools(stats)).as("%s", stats).contains("ask");
	}

	/** The tool each request the server was told is cancelled called. */
	private static List<String> calledTools(JsonNode stats) {
		List<String> tools = new ArrayList<>();
		stats.path("cancelled").forEach(id -> tools.add(stats.path("calls").path(id.asText()).asText("?")));
		return tools;
	}

	private static java.net.http.HttpRequest.Builder modern(RawHttp http, String body, String name) {
		return http.post("v1", body).header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "tools/call")
			.header("Mcp-Name", name);
	}

	private static int port() {
		return ((WebServerApplicationContext) relay).getWebServer().getPort();
	}

}
