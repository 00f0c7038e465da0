package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedLegacySseServer;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * A session belongs to the caller that opened it (DESIGN section 8): in {@code api-key} mode, with two clients allowed
 * on the same servers, {@code bob} presenting {@code alice}'s session id gets the 404 of an unknown session on POST, GET
 * and DELETE, for a pass-through server (the SDK's), a server with tool search (a relay session) and a legacy SSE server
 * (a bridged session), and {@code alice}'s session goes on as if nothing happened. The id the client sees carries the
 * upstream's id and a signature over it and the caller, so an altered id is refused too.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SessionTakeoverTest {

	static final String ALICE_KEY = "alice-key-1c9e5d3f7a2b4c6d8e0f";

	static final String BOB_KEY = "bob-key-8f6e4d2c0b9a7e5c3d1f";

	static final ScriptedLegacySseServer LEGACY = new ScriptedLegacySseServer();

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "api-key");
		registry.add("mcp-relay.security.api-keys[0].client", () -> "alice");
		registry.add("mcp-relay.security.api-keys[0].key-sha256", () -> ApiKeySecurityTest.sha256(ALICE_KEY));
		registry.add("mcp-relay.security.api-keys[0].servers[0]", () -> "*");
		registry.add("mcp-relay.security.api-keys[1].client", () -> "bob");
		registry.add("mcp-relay.security.api-keys[1].key-sha256", () -> ApiKeySecurityTest.sha256(BOB_KEY));
		registry.add("mcp-relay.security.api-keys[1].servers[0]", () -> "*");
		registry.add("mcp-relay.servers.sdk.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.sdk.arguments.reserved-prefix", () -> "");
		registry.add("mcp-relay.servers.search.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.search.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.legacy.url", LEGACY::url);
		registry.add("mcp-relay.servers.legacy.transport", () -> "sse");
	}

	@AfterAll
	static void stopUpstream() {
		LEGACY.close();
	}

	@BeforeEach
	void resetUpstream() {
		LEGACY.reset();
	}

	@ParameterizedTest(name = "{0}: another caller can neither use, watch nor end a session")
	@ValueSource(strings = { "sdk", "search", "legacy" })
	void anotherCallerCanNeitherUseWatchNorEndASession(String server) {
		RawHttp alice = new RawHttp(port, "X-Api-Key", ALICE_KEY);
		RawHttp bob = new RawHttp(port, "X-Api-Key", BOB_KEY);
		McpSession session = McpSession.open(alice, server);
		String aliceId = session.id();
		assertThat(aliceId).as("every server here keeps a session").isNotNull();

		HttpResponse<String> post = bob.send(withSession(bob.post(server, RawHttp.toolsCall(5, "echo")), aliceId));
		assertUnknownSession(post, "bob's POST in alice's session");
		HttpResponse<String> get = bob.send(withSession(bob.request(server).header("Accept", "text/event-stream").GET(),
				aliceId));
		assertUnknownSession(get, "bob's GET of alice's stream");
		HttpResponse<String> delete = bob.send(withSession(bob.request(server).DELETE(), aliceId));
		assertUnknownSession(delete, "bob's DELETE of alice's session");

		HttpResponse<String> altered = alice.send(withSession(alice.post(server, RawHttp.toolsCall(6, "echo")),
				aliceId.substring(0, aliceId.length() - 1) + (aliceId.endsWith("A") ? "B" : "A")));
		assertUnknownSession(altered, "an altered id, even from its owner");
		HttpResponse<String> bare = alice.send(withSession(alice.post(server, RawHttp.toolsCall(7, "echo")),
				aliceId.substring(0, aliceId.lastIndexOf('.'))));
		assertUnknownSession(bare, "the session's own id without the relay's signature");

		HttpResponse<String> stillHers = session.post("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\"}");
		assertThat(stillHers.statusCode()).as("alice's session survives bob's attempts: " + stillHers.body())
			.isEqualTo(200);
		HttpResponse<String> ended = alice.send(withSession(alice.request(server)
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.DELETE(), aliceId));
		assertThat(ended.statusCode()).as("alice ends her own session").isBetween(200, 299);
	}

	private static HttpRequest.Builder withSession(HttpRequest.Builder request, String sessionId) {
		return request.header("Mcp-Session-Id", sessionId).header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION);
	}

	private static void assertUnknownSession(HttpResponse<String> response, String what) {
		assertThat(response.statusCode()).as(what + ": " + response.body()).isEqualTo(404);
		assertThat(RawHttp.json(response.body()).at("/error/data/reason").asText()).as(what)
			.isEqualTo("session_not_found");
	}

}
