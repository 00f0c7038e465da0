package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.StreamCuttingProxy;

/**
 * A merged GET whose member's server a reload changed (review 44e, F2): the member stream already open finishes on
 * the settings it began with, but once it ends it is not opened again on them (the old address, the old secret), as
 * for a member a reload removed; the client's next GET opens it on the new settings. The member, the MCP Java SDK's
 * server, is reached through a proxy that drops its first GET stream after one event, as a network does.
 */
class ChangedMemberStreamReloadTest {

	static SdkMcpUpstream upstream;

	static StreamCuttingProxy proxy;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config("old-secret"))
		.peer(() -> upstream = new SdkMcpUpstream())
		.peer(() -> proxy = new StreamCuttingProxy(URI.create(upstream.url("/mcp")).getPort(), 1));

	@Test
	void aChangedMembersStreamThatEndsIsNotOpenedAgainOnTheSettingsItBeganWith() throws Exception {
		McpSession session = McpSession.open(live.http(), "v");
		try (OpenSse get = new OpenSse(live.http()
			.open(live.http()
				.request("v")
				.header("Accept", "text/event-stream")
				.header("Mcp-Session-Id", session.id())
				.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
				.GET()))) {
			Awaitility.await("alpha's member stream open").atMost(Duration.ofSeconds(20))
				.until(() -> upstream.getsServed() == 1);

			live.reload(config("new-secret"), ReloadOutcome.APPLIED);
			upstream.clearSeen();
			// the SDK's server sends its stream's headers with its first event; the proxy drops the stream after it
			upstream.notifyToolsListChanged();
			assertThat(get.next().path("method").asText()).isEqualTo("notifications/tools/list_changed");
			Awaitility.await("the member stream dropped").atMost(Duration.ofSeconds(20)).until(proxy::cut);

			// a member stream that ended is opened again within StreamBackoff.FIRST (and a quarter): watch several times
			Awaitility.await("alpha is not asked again on the old settings").pollDelay(Duration.ofMillis(100))
				.during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5))
				.until(() -> oldSecretGets().isEmpty());
		}
	}

	/** The GETs alpha got since the test cleared what it saw that carry the old secret. */
	private static List<SdkMcpUpstream.Seen> oldSecretGets() {
		return upstream.seen()
			.stream()
			.filter(seen -> seen.method().equals("GET") && "old-secret".equals(seen.headers().getFirst("X-Secret")))
			.toList();
	}

	static String config(String secret) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: none\n  servers:\n"
				+ "    alpha:\n      url: http://127.0.0.1:" + proxy.port() + "/mcp\n      headers:\n"
				+ "        - { name: X-Secret, value: " + secret + " }\n"
				+ "  virtual-servers:\n    v:\n      members: [alpha]\n";
	}

}
