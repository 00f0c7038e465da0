package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawSocketHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Review 44g's F1: a POST admitted before a reload removed its server, whose body completes after, is not forwarded
 * to the removed server (its old address, its old headers): a pass-through server's call is answered 404
 * {@code server_removed}, as a request that finds its server gone before its answer is; a call through a virtual
 * server (members {@code ["*"]}, which the removal leaves unchanged) to the removed member finds the member
 * unavailable. In mode {@code none}: nobody's access is concerned, only the server's. Before the mend both calls were
 * forwarded and run when their last bytes came.
 */
class BodyAfterRemovalReloadTest {

	static SdkMcpUpstream upstream;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config(true))
		.peer(() -> upstream = new SdkMcpUpstream());

	@Test
	void aPassThroughCallWhoseBodyEndsAfterItsServerWasRemovedIsAnswered404AndNeverForwarded() throws Exception {
		McpSession session = McpSession.open(live.http(), "gone");
		try (HeldPost held = held("gone", session.id(), 31, "echo")) {
			upstream.clearSeen();

			live.reload(config(false), ReloadOutcome.APPLIED);

			RawSocketHttp.Response answer = held.finish();
			assertThat(answer.status()).as("the late call: %s", answer.body()).isEqualTo(404);
			JsonNode error = new ObjectMapper().readTree(answer.body());
			assertThat(error.path("id").asInt()).isEqualTo(31);
			assertThat(error.at("/error/data/reason").asText()).isEqualTo("server_removed");
		}
		assertNoCallForwarded();
	}

	@Test
	void aVirtualServersCallWhoseBodyEndsAfterItsMembersServerWasRemovedIsNeverForwarded() throws Exception {
		McpSession session = McpSession.open(live.http(), "every");
		try (HeldPost held = held("every", session.id(), 32, "gone_echo")) {
			upstream.clearSeen();

			live.reload(config(false), ReloadOutcome.APPLIED);

			RawSocketHttp.Response answer = held.finish();
			assertThat(answer.body()).as("the late call").contains("\"id\":32").contains("member_unavailable")
				.contains("'gone'");
		}
		assertNoCallForwarded();
	}

	private static HeldPost held(String server, String sessionId, int id, String tool) throws Exception {
		return HeldPost.begin(TwoRelaysOverRedis.port(live.relay().context()), null, null, server, sessionId,
				HeldPost.toolsCall(id, tool));
	}

	private static void assertNoCallForwarded() {
		assertThat(upstream.seen()).as("the upstream got nothing of the call")
			.noneMatch(seen -> seen.body() != null && seen.body().contains("tools/call"));
	}

	/** alpha, and {@code gone} while {@code withGone}; a virtual server over every server. */
	static String config(boolean withGone) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  servers:\n    alpha:\n      url: "
				+ upstream.url("/mcp") + "\n" + (withGone ? "    gone:\n      url: " + upstream.url("/mcp") + "\n" : "")
				+ "  virtual-servers:\n    every:\n      members: [\"*\"]\n";
	}

}
