package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.mcprelay.Sha256;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * Review 44f's N4: a server a reload removes leaves a {@code members: ["*"]} virtual server and is never asked again:
 * when a later reload ends the virtual session (its members changed), the member sessions of the servers still
 * configured are sent DELETE, and the removed server's is not (it was sent one on its old settings, and counted as
 * one more of its streams ended, {@code server_removed}); nor when a server was added again under its id.
 */
class RemovedMemberSessionReloadTest {

	private static final String ALICE = "alice-key-for-removed-members";

	static SdkMcpUpstream kept;

	static SdkMcpUpstream removed;

	static SdkMcpUpstream elsewhere;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config(true, "[\"*\"]"))
		.peer(() -> kept = new SdkMcpUpstream())
		.peer(() -> removed = new SdkMcpUpstream())
		.peer(() -> elsewhere = new SdkMcpUpstream());

	@Test
	void aRemovedMembersSessionIsNotSentDeleteWhenTheVirtualSessionEndsLater() throws Exception {
		McpSession session = McpSession.open(live.http("X-Api-Key", ALICE), "all");
		assertThat(session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}").statusCode()).isEqualTo(200);
		assertThat(removed.seen()).as("gamma joined the session")
			.anyMatch(seen -> seen.body() != null && seen.body().contains("initialize"));

		live.reload(config(false, "[\"*\"]"), ReloadOutcome.APPLIED);
		removed.clearSeen();
		kept.clearSeen();
		double gammaEnded = live.relay().streamsEnded("gamma");

		live.reload(config(false, "[alpha]"), ReloadOutcome.APPLIED);

		Awaitility.await("alpha's member session sent DELETE as the session ends")
			.atMost(Duration.ofSeconds(60))
			.until(() -> kept.seen().stream().anyMatch(seen -> "DELETE".equals(seen.method())));
		assertThat(removed.seen()).as("the removed server is never asked again").isEmpty();
		assertThat(live.relay().streamsEnded("gamma")).as("nothing more counted under the removed server")
			.isEqualTo(gammaEnded);
	}

	/**
	 * Review 44g's F3: a server removed and then added again under its id at another address is another server: the
	 * member session the removed one held is sent nothing when the virtual session ends, neither at its old address
	 * nor at the new one (which never held it).
	 */
	@Test
	void aRemovedMembersSessionIsNotSentDeleteThoughAServerWasAddedAgainUnderItsId() throws Exception {
		McpSession session = McpSession.open(live.http("X-Api-Key", ALICE), "all");
		assertThat(session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}").statusCode()).isEqualTo(200);
		assertThat(removed.seen()).as("gamma joined the session")
			.anyMatch(seen -> seen.body() != null && seen.body().contains("initialize"));

		live.reload(config(false, "[\"*\"]"), ReloadOutcome.APPLIED);
		live.reload(config(elsewhere, "[\"*\"]"), ReloadOutcome.APPLIED);
		removed.clearSeen();
		elsewhere.clearSeen();
		kept.clearSeen();

		live.reload(config(elsewhere, "[alpha]"), ReloadOutcome.APPLIED);

		Awaitility.await("alpha's member session sent DELETE as the session ends")
			.atMost(Duration.ofSeconds(60))
			.until(() -> kept.seen().stream().anyMatch(seen -> "DELETE".equals(seen.method())));
		assertThat(removed.seen()).as("the removed server is never asked again").isEmpty();
		assertThat(elsewhere.seen()).as("the server added again under the id never held the session").isEmpty();
	}

	static String config(boolean withGamma, String members) {
		return config(withGamma ? removed : null, members);
	}

	/** alpha, gamma at {@code gamma} (none when {@code null}), and {@code all} over {@code members}. */
	static String config(SdkMcpUpstream gamma, String members) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: api-key\n    api-keys:\n"
				+ ApiKeysReloadTest.key("alice", Sha256.hex(ALICE), "[all]") + "  servers:\n    alpha:\n      url: "
				+ kept.url("/mcp") + "\n"
				+ (gamma != null ? "    gamma:\n      url: " + gamma.url("/mcp") + "\n" : "")
				+ "  virtual-servers:\n    all:\n      members: " + members + "\n";
	}

}
