package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Two relays over one real Redis, each on its mounted file, in front of a real MCP server (the MCP Java SDK's): a
 * virtual session opened on the first, which joined its member and then stopped, is served by the second while the
 * virtual server is as it was; once a reload changes the virtual server's settings on the second, that session is
 * answered 404 {@code session_ended} there, as the joining replica would have answered it, and its member session gets
 * its DELETE from the replica that found it.
 */
class VirtualSessionsOverRedisReloadTest {

	private static final String HUB = "    hub:\n      members: [alpha]\n";

	private static final String TOOLS_LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";

	@Test
	void aSessionTheStoppedJoiningReplicaKeptEndsOnTheOtherOnceAReloadChangesItsVirtualServer(@TempDir Path root)
			throws Exception {
		try (SdkMcpUpstream upstream = new SdkMcpUpstream(); RedisServerProcess redis = RedisServerProcess.start()) {
			String[] shared = redis.relayArguments().toArray(String[]::new);
			MountedRelay joining = MountedRelay.start(Files.createDirectory(root.resolve("joining")),
					config(upstream, HUB), shared);
			String sessionId;
			String memberSession;
			try (MountedRelay other = MountedRelay.start(Files.createDirectory(root.resolve("other")),
					config(upstream, HUB), shared)) {
				try {
					McpSession session = McpSession.open(http(joining), "hub");
					sessionId = session.id();
					memberSession = upstream.seen().stream()
						.filter(seen -> seen.body().contains("notifications/initialized"))
						.map(seen -> seen.headers().getFirst("Mcp-Session-Id"))
						.reduce((first, last) -> last)
						.orElseThrow();
				}
				finally {
					joining.close();
				}
				assertThat(toolsList(other, sessionId).statusCode()).as("the other replica serves the session")
					.isEqualTo(200);

				other.awaitOutcome(() -> other.swap(config(upstream,
						HUB + "      tool-prefix: \"{server}__\"\n")), ReloadOutcome.APPLIED);

				HttpResponse<String> next = toolsList(other, sessionId);
				assertThat(next.statusCode()).as(next.body()).isEqualTo(404);
				assertThat(RawHttp.json(next.body()).at("/error/data/reason").asText()).isEqualTo("session_ended");
				Awaitility.await("the member session's DELETE").atMost(Duration.ofSeconds(20))
					.until(() -> deletes(upstream).contains(memberSession));
				assertThat(toolsList(other, sessionId).statusCode()).as("the session is forgotten").isEqualTo(404);
			}
		}
	}

	private static HttpResponse<String> toolsList(MountedRelay relay, String sessionId) {
		RawHttp http = http(relay);
		return http.send(http.post("hub", TOOLS_LIST)
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.header("Mcp-Session-Id", sessionId));
	}

	private static RawHttp http(MountedRelay relay) {
		return new RawHttp(TwoRelaysOverRedis.port(relay.context()));
	}

	private static List<String> deletes(SdkMcpUpstream upstream) {
		List<String> ids = new ArrayList<>();
		upstream.seen().stream()
			.filter(seen -> seen.method().equals("DELETE"))
			.forEach(seen -> ids.add(seen.headers().getFirst("Mcp-Session-Id")));
		return ids;
	}

	private static String config(SdkMcpUpstream upstream, String virtualServers) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: none\n  sessions:\n"
				+ "    store: redis\n  servers:\n    alpha:\n      url: " + upstream.url("/mcp") + "\n  virtual-servers:\n"
				+ virtualServers;
	}

}
