package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.Sha256;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RawSocketHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Review 44i's C: a call held across a reload that narrowed its key off a member of a virtual server the session has
 * not joined (the member was down when the session began, up since) is refused (403 {@code access_withdrawn}) and the
 * member gets nothing of the key: no {@code initialize}, no GET. Before the mend the member was joined for the key
 * first, and only then the call refused. The members are the MCP Java SDK's server, alpha started late on a port kept
 * free until then.
 */
class UnjoinedMemberRevocationReloadTest {

	private static final String ALICE = "alice-key-for-unjoined-members";

	private static final int ALPHA_PORT = TestUpstreams.freePort();

	static SdkMcpUpstream beta;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config("[alpha, beta]"))
		.peer(() -> beta = new SdkMcpUpstream());

	@Test
	void aHeldCallToAMemberNotJoinedThatTheKeyLostIsRefusedWithoutJoiningIt() throws Exception {
		RawHttp alice = live.http("X-Api-Key", ALICE);
		McpSession session = McpSession.open(alice, "duo");
		try (SdkMcpUpstream alpha = SdkMcpUpstream.onPort(ALPHA_PORT);
				HeldPost held = HeldPost.begin(TwoRelaysOverRedis.port(live.relay().context()), "X-Api-Key", ALICE,
						"duo", session.id(), HeldPost.toolsCall(31, "alpha_echo"))) {
			live.reload(config("[beta]"), ReloadOutcome.APPLIED);

			RawSocketHttp.Response answer = held.finish();
			assertThat(answer.status()).as("the held call: %s", answer.body()).isEqualTo(403);
			JsonNode error = RawHttp.json(answer.body());
			assertThat(error.path("id").asInt()).isEqualTo(31);
			assertThat(error.at("/error/data/reason").asText()).isEqualTo("access_withdrawn");
			assertThat(alpha.seen()).as("alpha got nothing of the key's").isEmpty();
		}
	}

	static String config(String servers) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: api-key\n    api-keys:\n"
				+ "      - client: alice\n        key-sha256: \"" + Sha256.hex(ALICE) + "\"\n        servers: " + servers
				+ "\n  servers:\n    alpha:\n      url: http://127.0.0.1:" + ALPHA_PORT + "/mcp\n    beta:\n"
				+ "      url: " + beta.url("/mcp") + "\n  virtual-servers:\n    duo:\n      members: [alpha, beta]\n";
	}

}
