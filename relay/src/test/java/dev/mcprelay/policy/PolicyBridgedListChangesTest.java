package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * A list change the version bridge relays to no client is heard by the relay all the same (cold review 43d, finding
 * 1): a 2026-07-28 client of a server that speaks only session-era MCP (the SDK's, bridged per request in an upstream
 * session) listens for prompt changes only; the server republishes a tool as no longer read-only and says its tools
 * changed on the session's GET stream, which the bridge serves the listen from. The bridge keeps that
 * {@code notifications/tools/list_changed} from the client (its {@code subscriptions/listen} did not ask for it), and
 * it used to go no further: the policies decided the next call from the catalogue kept before the change (the default
 * {@code annotations-max-age}, a minute, is far off). Now the relay hears it, forgets the catalogue, lists the tools
 * again, and refuses the call the new definition refuses, which never goes upstream.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyBridgedListChangesTest {

	static final SdkMcpUpstream UPSTREAM = new SdkMcpUpstream();

	static final String MODERN = "2026-07-28";

	@LocalServerPort
	int port;

	@Autowired
	PublishedCatalogues catalogues;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "none");
		registry.add("mcp-relay.servers.old.url", () -> UPSTREAM.url("/mcp"));
		registry.add("mcp-relay.servers.old.protocol-versions[0]", () -> "2025-06-18");
		registry.add("mcp-relay.policies[0].name", () -> "read-only");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "*");
		registry.add("mcp-relay.policies[0].deny",
				() -> "mcp.method == \"tools/call\" && !mcp.tool.annotations.?readOnlyHint.orValue(false)");
	}

	@AfterEach
	void readOnlyAgain() {
		UPSTREAM.republish("secret_audit", true);
	}

	@AfterAll
	static void stop() throws Exception {
		UPSTREAM.close();
	}

	@Test
	void aToolsListChangedTheClientsListenDidNotAskForStillMakesTheNextCallDecidedFromTheNewDefinition()
			throws Exception {
		RawHttp http = new RawHttp(port);
		assertThat(call(http, 2, "secret_audit").has("result")).as("read-only as published").isTrue();
		int getsBefore = UPSTREAM.getsServed();

		HttpResponse<InputStream> listen = http.open(modern(http, "subscriptions/listen", null,
				"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"subscriptions/listen\",\"params\":{" + ENVELOPE + ",\"notifications\":"
						+ "{\"promptsListChanged\":true}}}"));
		try (InputStream stream = listen.body()) {
			assertThat(listen.statusCode()).isEqualTo(200);
			// read as it comes, the stream left open: the listen holds the session's GET stream while it lasts
			BufferedReader lines = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8));
			String line = lines.readLine();
			while (line != null && !line.startsWith("data:")) {
				line = lines.readLine();
			}
			assertThat(line).as("the listen's first event").isNotNull();
			JsonNode acknowledged = RawHttp.json(line.substring(5).strip());
			assertThat(acknowledged.path("method").asText()).isEqualTo("notifications/subscriptions/acknowledged");
			assertThat(acknowledged.at("/params/notifications").toString()).as("the listen covers prompts, not tools")
				.isEqualTo("{\"promptsListChanged\":true}");

			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			// the server drops a notification for a session whose stream is not open yet: wait until it holds the GET
			while (UPSTREAM.getsServed() == getsBefore) {
				assertThat(System.nanoTime()).as("the relay opened the session's GET stream").isLessThan(deadline);
				Thread.sleep(20);
			}
			long heardBefore = catalogues.changesHeard("old", "tools/list");
			UPSTREAM.republish("secret_audit", false); // said on the session's GET stream, which the listen holds
			while (catalogues.changesHeard("old", "tools/list") == heardBefore && System.nanoTime() < deadline) {
				Thread.sleep(20);
			}
			assertThat(catalogues.changesHeard("old", "tools/list")).as("the relay heard the server's tools change")
				.isGreaterThan(heardBefore);

			UPSTREAM.clearSeen();
			JsonNode refused = call(http, 4, "secret_audit");
			assertThat(refused.path("error").path("message").asText()).as("%s", refused)
				.isEqualTo("Unknown tool: secret_audit");
			assertThat(UPSTREAM.seen()).as("listed again; the call never went upstream")
				.anyMatch(seen -> seen.body().contains("\"tools/list\""))
				.noneMatch(seen -> seen.body().contains("\"tools/call\""));
		}
	}

	private JsonNode call(RawHttp http, int id, String tool) {
		HttpResponse<String> answer = http.send(modern(http, "tools/call", tool, "{\"jsonrpc\":\"2.0\",\"id\":" + id
				+ ",\"method\":\"tools/call\",\"params\":{" + ENVELOPE + ",\"name\":\"" + tool
				+ "\",\"arguments\":{\"message\":\"hi\"}}}"));
		List<JsonNode> messages = RawHttp.messagesOf(answer);
		assertThat(messages).as(answer.statusCode() + " " + answer.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

	/** The envelope every 2026-07-28 request carries (the relay refuses one without, as a 2026-07-28 server does). */
	private static final String ENVELOPE = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"" + MODERN
			+ "\",\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
			+ "{\"name\":\"policy-test\",\"version\":\"1\"}}";

	/** A 2026-07-28 request of {@code method} (naming {@code name}, when given) to server {@code old}. */
	private static java.net.http.HttpRequest.Builder modern(RawHttp http, String method, String name, String body) {
		java.net.http.HttpRequest.Builder request = http.post("old", body)
			.header("MCP-Protocol-Version", MODERN)
			.header("Mcp-Method", method);
		return name == null ? request : request.header("Mcp-Name", name);
	}

}
