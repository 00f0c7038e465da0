package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Iterator;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * The version bridge (issue 46) driven by a third SDK, the official MCP Python SDK ({@code interop/python/
 * bridge_client.py}, which speaks either generation), in both directions, against what the same client gets from a
 * server of its own generation:
 * <ul>
 * <li>a session-era Python client (2025-11-25) reaches the TypeScript SDK v2 server that accepts only 2026-07-28
 * ({@code interop/only-2026-server.mjs}), whose versions the relay learns or has pinned, with the answers a 2026 Python
 * client gets from it directly: tools, a text that is not ASCII, an elicitation and a completion the server asks for
 * in two rounds of {@code input_required} (the client answers them as server requests of its session) and the roots
 * it asks for;</li>
 * <li>a 2026 Python client (its SDK discovers the server through the relay) reaches the MCP Java SDK's session-era
 * server ({@link SdkMcpUpstream}), with the answers a session-era Python client gets from it directly: tools, an
 * unknown tool, prompts, resources, and a completion the server asks for while it answers a call (an
 * {@code input_required} result the SDK fulfils and retries).</li>
 * </ul>
 */
class PythonSdkBridgeInteropTest {

	private static final ObjectMapper JSON = new ObjectMapper();

	/** What says which generation answered, not what was answered: left out of the comparison with the direct run. */
	private static final Set<String> GENERATION = Set.of("protocolVersion");

	private static NodePeers.NodeServer only2026;

	private static SdkMcpUpstream sessionEra;

	private static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		PythonPeers.install();
		only2026 = NodePeers.startServer("only-2026-server.mjs");
		sessionEra = new SdkMcpUpstream();
		relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.properties("server.port=0", "server.address=127.0.0.1",
					"mcp-relay.servers.modern-learnt.url=" + only2026.url(),
					"mcp-relay.servers.modern-pinned.url=" + only2026.url(),
					"mcp-relay.servers.modern-pinned.protocol-versions=2026-07-28",
					"mcp-relay.servers.era-learnt.url=" + sessionEra.url("/mcp"),
					"mcp-relay.servers.era-pinned.url=" + sessionEra.url("/mcp"),
					"mcp-relay.servers.era-pinned.protocol-versions=2025-11-25")
			.run();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (sessionEra != null) {
			sessionEra.close();
		}
		if (only2026 != null) {
			only2026.close();
		}
	}

	@Test
	void aSessionEraPythonClientGetsFromA2026OnlyServerWhatA2026PythonClientGets() throws Exception {
		JsonNode refused = client(only2026.url(), "legacy");
		assertThat(refused.has("failed")).as("directly, the server refuses the session-era client: %s", refused).isTrue();
		JsonNode direct = client(only2026.url(), "modern");
		assertThat(direct.path("protocolVersion").asText()).as("%s", direct).isEqualTo("2026-07-28");
		assertThat(direct.path("confirm").asText()).as("the server's two rounds, answered")
			.isEqualTo("deploy: confirmed=true, summary=hello from the model, state kept=true");
		assertThat(direct.path("roots").asText()).isEqualTo("file:///work/a,file:///work/b");

		for (String server : List.of("modern-learnt", "modern-pinned")) {
			JsonNode bridged = client(relayUrl(server), "legacy");
			assertThat(bridged.path("protocolVersion").asText()).as("%s: the client's own version: %s", server, bridged)
				.isEqualTo("2025-11-25");
			assertThat(withoutGeneration(bridged)).as("%s: the same answers as the 2026 client's, directly", server)
				.isEqualTo(withoutGeneration(direct));
		}
	}

	@Test
	void a2026PythonClientGetsFromASessionEraServerWhatASessionEraPythonClientGets() throws Exception {
		JsonNode direct = client(sessionEra.url("/mcp"), "legacy");
		assertThat(direct.path("protocolVersion").asText()).as("%s", direct).isEqualTo("2025-11-25");
		assertThat(direct.path("askModel").asText()).as("the completion the server asked for").contains(
				"hello from the model");
		assertThat(direct.path("prompts").isArray() && direct.path("resources").isArray()).as("%s", direct).isTrue();

		for (String server : List.of("era-learnt", "era-pinned")) {
			JsonNode bridged = client(relayUrl(server), "modern");
			assertThat(bridged.path("protocolVersion").asText()).as("%s: the client's own version: %s", server, bridged)
				.isEqualTo("2026-07-28");
			assertThat(withoutGeneration(bridged)).as("%s: the same answers as the session-era client's, directly",
					server).isEqualTo(withoutGeneration(direct));
		}
	}

	private static JsonNode client(String endpoint, String era) throws Exception {
		return JSON.readTree(PythonPeers.runClient("bridge_client.py", endpoint, era));
	}

	private static JsonNode withoutGeneration(JsonNode transcript) {
		ObjectNode copy = transcript.deepCopy();
		for (Iterator<String> names = copy.fieldNames(); names.hasNext();) {
			if (GENERATION.contains(names.next())) {
				names.remove();
			}
		}
		return copy;
	}

	private static String relayUrl(String server) {
		return "http://127.0.0.1:" + ((WebServerApplicationContext) relay).getWebServer().getPort() + "/mcp/" + server;
	}

}
