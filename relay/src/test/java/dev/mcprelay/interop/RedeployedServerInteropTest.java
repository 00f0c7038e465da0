package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.bridge.ServerVersions;
import dev.mcprelay.bridge.VersionBridge;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * A server redeployed as the other protocol generation behind the same URL (review K, finding 5: what the relay learnt
 * of a server's versions was never revised). One port is served in turn by the TypeScript SDK v2 server that accepts
 * only 2026-07-28 ({@code interop/only-2026-server.mjs}), the MCP Java SDK's server, which speaks only session-era MCP
 * ({@link SdkMcpUpstream}), and the 2026-only server again. The relay learns the first as 2026-only and bridges a 2025
 * client to it; once the Java SDK's server answers there, the bridged session ends at its next request (404
 * {@code session_ended}), a new 2025 client is relayed as it speaks, and a 2026 client is bridged to it; once the
 * 2026-only server is back, the 2026 client is relayed as it speaks and a 2025 client bridged again. A server whose
 * versions are pinned ({@code pinned}) is never revised. What is learnt comes from the relay's own requests only
 * (review 46j, N1), each asked at most once per {@link ServerVersions#PROBE_INTERVAL}: the test waits that long after
 * each redeployment, so that the verdict of the relay's last own request, which the server before answered, is no
 * longer shared.
 */
class RedeployedServerInteropTest {

	private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
			+ "{\"name\":\"redeployed\",\"version\":\"1\"}}";

	private int port;

	private AutoCloseable upstream;

	private ConfigurableApplicationContext relay;

	@BeforeEach
	void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		port = TestUpstreams.freePort();
		upstream = NodePeers.startServer("only-2026-server.mjs", port, Map.of());
		String url = "http://127.0.0.1:" + port + "/mcp";
		relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.properties("server.port=0", "server.address=127.0.0.1", "mcp-relay.servers.moving.url=" + url,
					"mcp-relay.servers.pinned.url=" + url, "mcp-relay.servers.pinned.protocol-versions=2026-07-28")
			.run();
	}

	@AfterEach
	void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (upstream != null) {
			upstream.close();
		}
	}

	@Test
	void aServerRedeployedAsTheOtherGenerationIsRevisedAndBack() throws Exception {
		RawHttp http = new RawHttp(relayPort());
		McpSession bridged = McpSession.open(http, "moving");
		assertThat(bridged.id()).as("learnt as 2026-only: the bridge's session").startsWith("mcp-bridge-");
		assertThat(echo(bridged, 1, "2026")).isEqualTo("2026");
		assertThat(versions("moving")).containsExactly("2026-07-28");

		redeploy(() -> SdkMcpUpstream.onPort(port));

		HttpResponse<String> ended = bridged.post(call(2, "in the old session"));
		assertThat(ended.statusCode()).as("the bridged session ends: %s", ended.body()).isEqualTo(404);
		assertThat(RawHttp.json(ended.body()).at("/error/data/reason").asText()).isEqualTo("session_ended");
		assertThat(versions("moving")).as("what was learnt is forgotten").isEmpty();
		McpSession direct = McpSession.open(http, "moving");
		assertThat(direct.id()).as("the 2025 server's own session, relayed as the client speaks").isNotNull()
			.doesNotStartWith("mcp-bridge-");
		assertThat(echo(direct, 3, "2025 direct")).isEqualTo("2025 direct");
		assertThat(modernEcho(http, 4, "2026 bridged")).as("a 2026 client, bridged once the server refused the relay's "
				+ "own server/discover and answered its own initialize").isEqualTo("2026 bridged");
		assertThat(versions("moving")).as("learnt from the relay's own initialize").allMatch(version -> version.startsWith("2025-"));

		HttpResponse<String> pinned = http.send(http.post("pinned", McpSession.initialize(5)));
		assertThat(pinned.headers().firstValue("Mcp-Session-Id").orElse("")).as("pinned: never relayed as it came: %s",
				pinned.body()).doesNotStartWith("mcp-bridge-");
		assertThat(versions("pinned")).containsExactly("2026-07-28");
		assertThat(RawHttp.json(pinned.body()).has("error") || pinned.statusCode() >= 500)
			.as("pinned as 2026-only, the Java SDK's server cannot answer the bridge's discovery: %s", pinned.body())
			.isTrue();

		redeploy(() -> NodePeers.startServer("only-2026-server.mjs", port, Map.of()));

		assertThat(modernEcho(http, 6, "2026 direct")).as("the 2026 client, relayed as it speaks once the server named "
				+ "its versions").isEqualTo("2026 direct");
		assertThat(versions("moving")).containsExactly("2026-07-28");
		McpSession bridgedAgain = McpSession.open(http, "moving");
		assertThat(bridgedAgain.id()).as("a 2025 client is bridged again").startsWith("mcp-bridge-");
		assertThat(echo(bridgedAgain, 7, "bridged again")).isEqualTo("bridged again");
	}

	/**
	 * Stops the server on the port and starts {@code next} there; returns once the relay's own requests of before may
	 * be asked again ({@link ServerVersions#PROBE_INTERVAL}).
	 */
	private void redeploy(java.util.concurrent.Callable<AutoCloseable> next) throws Exception {
		AutoCloseable previous = upstream;
		upstream = null;
		previous.close();
		upstream = next.call();
		Thread.sleep(ServerVersions.PROBE_INTERVAL.toMillis());
	}

	private java.util.Set<String> versions(String id) {
		dev.mcprelay.proxy.Upstream server = relay.getBean(dev.mcprelay.proxy.UpstreamRegistry.class).find(id);
		return ((VersionBridge) relay.getBean(dev.mcprelay.proxy.UpstreamTransports.class).of(server)).versions()
			.known();
	}

	/** Calls {@code echo} in {@code session}; the text it answers (the TypeScript server echoes {@code text}, the Java SDK's {@code message}). */
	private static String echo(McpSession session, int id, String text) {
		HttpResponse<String> answer = session.post(call(id, text));
		assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
		return RawHttp.messagesOf(answer).get(0).at("/result/content/0/text").asText();
	}

	/** Calls {@code echo} as a 2026-07-28 client (no session, the envelope in {@code _meta}); the text it answers. */
	private String modernEcho(RawHttp http, int id, String text) {
		HttpResponse<String> answer = http.send(http.post("moving", "{\"jsonrpc\":\"2.0\",\"id\":" + id
				+ ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"" + text
				+ "\",\"message\":\"" + text + "\"}," + META + "}}")
			.header("MCP-Protocol-Version", "2026-07-28")
			.header("Mcp-Method", "tools/call")
			.header("Mcp-Name", "echo"));
		assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
		JsonNode result = RawHttp.messagesOf(answer).get(0);
		return result.at("/result/content/0/text").asText(result.toString());
	}

	private static String call(int id, String text) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
				+ "\"arguments\":{\"text\":\"" + text + "\",\"message\":\"" + text + "\"}}}";
	}

	private int relayPort() {
		return ((WebServerApplicationContext) relay).getWebServer().getPort();
	}

}
