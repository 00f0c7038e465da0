package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * Sessions bound to their caller stay stateless across replicas: two relays in {@code api-key} mode sharing
 * {@code sessions.secret} (and nothing else: no store) serve one client's session in turn, another client still gets
 * the 404 of an unknown session on either, and a relay with another secret trusts neither's ids.
 */
class SessionBindingAcrossReplicasTest {

	static final String SECRET = "replicas-share-this-3f9a1c7e-5d2b8f04a6c1";

	static ConfigurableApplicationContext first;

	static ConfigurableApplicationContext second;

	static ConfigurableApplicationContext stranger;

	@BeforeAll
	static void startRelays() {
		first = relay(SECRET);
		second = relay(SECRET);
		stranger = relay("another-secret-77d2b0e4-9c1f3a5e7b2d4f6a");
	}

	@AfterAll
	static void stopRelays() {
		for (ConfigurableApplicationContext relay : new ConfigurableApplicationContext[] { first, second, stranger }) {
			if (relay != null) {
				relay.close();
			}
		}
	}

	@Test
	void aSessionOpenedOnOneReplicaGoesOnOnAnotherForItsCallerOnly() {
		McpSession opened = McpSession.open(new RawHttp(port(first), "X-Api-Key", SessionTakeoverTest.ALICE_KEY), "sdk");

		HttpResponse<String> continued = call(second, SessionTakeoverTest.ALICE_KEY, opened.id());
		HttpResponse<String> bobOnFirst = call(first, SessionTakeoverTest.BOB_KEY, opened.id());
		HttpResponse<String> bobOnSecond = call(second, SessionTakeoverTest.BOB_KEY, opened.id());
		HttpResponse<String> elsewhere = call(stranger, SessionTakeoverTest.ALICE_KEY, opened.id());

		assertThat(continued.statusCode()).as("the second replica verifies the first's id: " + continued.body())
			.isEqualTo(200);
		assertThat(RawHttp.messagesOf(continued).get(0).at("/result/content/0/text").asText()).isEqualTo("replica");
		for (HttpResponse<String> refused : java.util.List.of(bobOnFirst, bobOnSecond, elsewhere)) {
			assertThat(refused.statusCode()).as(refused.body()).isEqualTo(404);
			assertThat(ApiKeySecurityTest.reason(refused)).isEqualTo("session_not_found");
		}
	}

	private static HttpResponse<String> call(ConfigurableApplicationContext relay, String key, String sessionId) {
		RawHttp http = new RawHttp(port(relay), "X-Api-Key", key);
		return http.send(http.post("sdk", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"echo\",\"arguments\":{\"message\":\"replica\"}}}")
			.header("Mcp-Session-Id", sessionId)
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION));
	}

	private static ConfigurableApplicationContext relay(String secret) {
		return new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class).run("--server.port=0",
				"--server.address=127.0.0.1", "--mcp-relay.security.mode=api-key",
				"--mcp-relay.security.api-keys[0].client=alice",
				"--mcp-relay.security.api-keys[0].key-sha256=" + ApiKeySecurityTest.sha256(SessionTakeoverTest.ALICE_KEY),
				"--mcp-relay.security.api-keys[0].servers[0]=*", "--mcp-relay.security.api-keys[1].client=bob",
				"--mcp-relay.security.api-keys[1].key-sha256=" + ApiKeySecurityTest.sha256(SessionTakeoverTest.BOB_KEY),
				"--mcp-relay.security.api-keys[1].servers[0]=*", "--mcp-relay.sessions.secret=" + secret,
				"--mcp-relay.servers.sdk.url=" + TestUpstreams.SDK.url("/mcp"),
				"--mcp-relay.servers.sdk.arguments.reserved-prefix=");
	}

	private static int port(ConfigurableApplicationContext relay) {
		return ((WebServerApplicationContext) relay).getWebServer().getPort();
	}

}
