package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.SseReader;

/**
 * A virtual server for MCP 2026-07-28 clients, which keep no session: the TypeScript SDK v2 client discovers the
 * composition of two v2 servers, lists their merged tools, calls one through each prefix (the mirrored
 * {@code Mcp-Name} header rewritten with the name), and holds a {@code subscriptions/listen} stream merged from both. A
 * subscription a member refuses (a stateless 2025 server, the MCP Java SDK's, which offers no stream: the version
 * bridge's listen gets 405 for its GET) is named to the client before the others' stream, and one that no member takes
 * is an error for the request, never an empty stream. (A 2025 server that keeps sessions, the TypeScript SDK 1.x, takes
 * the subscription through the version bridge, on its GET stream.)
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualServerV2InteropTest {

	private static NodePeers.NodeServer server;

	/** A 2025 server (the TypeScript SDK 1.x), which keeps sessions: the version bridge serves its subscriptions. */
	private static NodePeers.NodeServer old;

	/** A stateless 2025 server (the MCP Java SDK's {@code /stateless}): it has no stream to serve a subscription on. */
	private static SdkMcpUpstream flat;

	private static final String LISTEN = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"subscriptions/listen\",\"params\":"
			+ "{\"notifications\":{\"toolsListChanged\":true},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
			+ "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
			+ "{\"name\":\"mcp-relay-interop\",\"version\":\"1\"}}}}";

	@LocalServerPort
	int port;

	@BeforeAll
	static void startServer() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		server = NodePeers.startServer("listen-server-v2.mjs");
		old = NodePeers.startServer("member-server.mjs");
		flat = new SdkMcpUpstream();
	}

	@AfterAll
	static void stopServer() throws Exception {
		if (server != null) {
			server.close();
		}
		if (old != null) {
			old.close();
		}
		if (flat != null) {
			flat.close();
		}
	}

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.one.url", () -> server.url());
		registry.add("mcp-relay.servers.two.url", () -> server.url());
		registry.add("mcp-relay.virtual-servers.both.members", () -> "one,two");
		registry.add("mcp-relay.servers.old.url", () -> old.url());
		registry.add("mcp-relay.servers.flat.url", () -> flat.url("/stateless"));
		registry.add("mcp-relay.virtual-servers.bridged.members", () -> "one,old");
		registry.add("mcp-relay.virtual-servers.mixed.members", () -> "one,flat");
		registry.add("mcp-relay.virtual-servers.flatonly.members", () -> "flat");
	}

	@Test
	void aV2ClientDiscoversListsCallsAndListensWithoutASession() throws Exception {
		JsonNode transcript = new ObjectMapper().readTree(NodePeers.runClient("virtual-v2-client.mjs",
				"http://127.0.0.1:" + port + "/mcp/both", "one_echo", "two_echo"));

		assertThat(transcript.at("/tools").toString()).isEqualTo("[\"one_echo\",\"two_echo\"]");
		assertThat(transcript.at("/calls/one_echo").asText()).isEqualTo("hi");
		assertThat(transcript.at("/calls/two_echo").asText()).isEqualTo("hi");
		assertThat(transcript.at("/unknown").toString()).contains("-32602");
		assertThat(transcript.at("/listenAfterOneSecond").asText()).as("the merged subscription stays open").isEqualTo("open");
	}

	@Test
	void aSubscriptionSomeMembersRefuseNamesThemAndOneNoMemberTakesIsAnError() throws Exception {
		RawHttp http = new RawHttp(port);

		HttpResponse<InputStream> mixed = http.open(listen(http, "mixed"));
		assertThat(mixed.statusCode()).isEqualTo(200);
		List<SseReader.Event> first = SseReader.read(mixed.body(), 2, Duration.ofSeconds(20));
		assertThat(first.get(0).data().path("method").asText()).isEqualTo("notifications/message");
		assertThat(first.get(0).data().at("/params/data").asText()).as("the member that refused, named")
			.contains("'flat'");
		assertThat(first.get(1).data().path("method").asText()).as("the other's subscription goes on")
			.isEqualTo("notifications/subscriptions/acknowledged");

		HttpResponse<String> none = http.send(listen(http, "flatonly"));
		List<JsonNode> answered = RawHttp.messagesOf(none);
		assertThat(answered).as("one answer to the request, not an empty stream: %s", none.body()).hasSize(1);
		assertThat(answered.get(0).path("id").asInt()).isEqualTo(9);
		assertThat(answered.get(0).has("error")).as(none.body()).isTrue();
	}

	@Test
	void aSubscriptionA2025MemberThatKeepsSessionsTakesThroughTheVersionBridgeIsNoRefusal() throws Exception {
		RawHttp http = new RawHttp(port);

		HttpResponse<InputStream> bridged = http.open(listen(http, "bridged"));
		assertThat(bridged.statusCode()).isEqualTo(200);
		List<SseReader.Event> first = SseReader.read(bridged.body(), 1, Duration.ofSeconds(20));
		assertThat(first.get(0).data().path("method").asText()).as("no warning naming 'old': %s", first)
			.isEqualTo("notifications/subscriptions/acknowledged");
		bridged.body().close();
	}

	private static HttpRequest.Builder listen(RawHttp http, String server) {
		return http.post(server, LISTEN).header("MCP-Protocol-Version", "2026-07-28")
			.header("Mcp-Method", "subscriptions/listen");
	}

}
