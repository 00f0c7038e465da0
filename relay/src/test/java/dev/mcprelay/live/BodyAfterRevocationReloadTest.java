package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.mcprelay.Sha256;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawSocketHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Review 44f's N1: a POST the front door admitted on its headers, whose body completes only after a reload withdrew
 * its caller's access, is refused (403, reason {@code access_withdrawn}) and nothing of it reaches the upstream: its
 * key removed (a pass-through server), or its key's {@code servers} narrowed off the member a virtual server's call
 * goes to. Before the mend the call was forwarded and run when its last bytes came. Review 44g's F2: a call read
 * whole before the reload but waiting its session's turn is refused too. Review 44g's F4: a held call to a member the
 * narrowed key may still use goes on. Review 44i's B: the per-member refusal is recorded on the virtual server's line
 * as a refusal ({@code client_error}), not as a forwarded 403.
 */
class BodyAfterRevocationReloadTest {

	private static final String ALICE = "alice-key-for-late-bodies";

	private static final String BOB = "bob-key-for-late-bodies";

	static SdkMcpUpstream upstream;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture
		.startingOn(() -> config(key("alice", ALICE, "[alpha, beta]") + key("bob", BOB, "[alpha]")))
		.peer(() -> upstream = new SdkMcpUpstream());

	@Test
	void aPassThroughCallWhoseBodyEndsAfterItsKeyWasRemovedIsRefusedAndNeverForwarded() throws Exception {
		McpSession session = McpSession.open(live.http("X-Api-Key", ALICE), "alpha");
		try (HeldPost held = held("alpha", session.id(), 11, "echo")) {
			upstream.clearSeen();

			live.reload(config(key("bob", BOB, "[alpha]")), ReloadOutcome.APPLIED);

			assertRefused(held.finish(), 11);
		}
		assertNoCallForwarded();
	}

	/**
	 * Review 44g's F2: a call read whole before the reload, waiting its session's turn behind a call whose body is
	 * still arriving, is checked again when its turn comes, and refused.
	 */
	@Test
	void aCallReadBeforeItsKeyWasRemovedButWaitingItsTurnIsRefusedAndNeverForwarded() throws Exception {
		for (int attempt = 1;; attempt++) {
			McpSession session = McpSession.open(live.http("X-Api-Key", ALICE), "alpha");
			upstream.clearSeen();
			HeldPost ahead = held("alpha", session.id(), 13, "echo");
			// a session's requests take their places as the relay reads their headers, each on its own connection:
			// the one ahead gets a head start
			Thread.sleep(1000);
			HeldPost behind = held("alpha", session.id(), 14, "echo").rest();
			// its body read and checked while the key still holds: it waits for the one ahead to go
			Thread.sleep(1500);
			if (callForwarded()) {
				// its headers were read first after all: it went at once, which is not the case under test
				ahead.close();
				behind.close();
				assertThat(attempt).as("the second call took its place first every time").isLessThan(3);
				continue;
			}
			try (ahead; behind) {
				live.reload(config(key("bob", BOB, "[alpha]")), ReloadOutcome.APPLIED);

				assertRefused(ahead.finish(), 13);
				assertRefused(behind.answer(), 14);
			}
			assertNoCallForwarded();
			return;
		}
	}

	@Test
	void aVirtualServersCallWhoseBodyEndsAfterItsKeyLostTheMemberIsRefusedAndNeverForwarded() throws Exception {
		double initialized = recorded("duo", "notifications/initialized");
		McpSession session = McpSession.open(live.http("X-Api-Key", ALICE), "duo");
		// a request is recorded as its exchange ends, which may be just after its client has the answer: the
		// session's own notifications/initialized (202, forwarded) is counted before the counts are taken
		Awaitility.await("the session's notifications/initialized recorded").atMost(Duration.ofSeconds(10))
			.until(() -> recorded("duo", "notifications/initialized") > initialized);
		try (HeldPost held = held("duo", session.id(), 12, "alpha_echo")) {
			upstream.clearSeen();

			double refused = live.relay().requests("duo", "client_error");
			double forwarded = live.relay().requests("duo", "forwarded");
			live.reload(config(key("alice", ALICE, "[beta]") + key("bob", BOB, "[alpha]")),
					ReloadOutcome.APPLIED);

			assertRefused(held.finish(), 12);
			// review 44i's B: recorded on the virtual server's line as the refusal it is, not as a member's answer
			Awaitility.await("the refusal recorded").atMost(Duration.ofSeconds(10))
				.until(() -> live.relay().requests("duo", "client_error") == refused + 1);
			assertThat(live.relay().requests("duo", "forwarded")).as("not as forwarded").isEqualTo(forwarded);
		}
		assertNoCallForwarded();
	}

	/**
	 * Review 44g's F4: a key narrowed off one member of a virtual server keeps its held call to a member it may still
	 * use: the call goes, and is answered.
	 */
	@Test
	void aVirtualServersCallToAMemberItsKeyKeepsRunsOnThoughTheKeyLostAnother() throws Exception {
		McpSession session = McpSession.open(live.http("X-Api-Key", ALICE), "duo");
		try (HeldPost held = held("duo", session.id(), 15, "beta_echo")) {
			upstream.clearSeen();

			live.reload(config(key("alice", ALICE, "[beta]") + key("bob", BOB, "[alpha]")),
					ReloadOutcome.APPLIED);

			RawSocketHttp.Response answer = held.finish();
			assertThat(answer.status()).as("the call to beta: %s", answer.body()).isEqualTo(200);
			assertThat(answer.body()).contains("\"id\":15").contains("late").doesNotContain("\"error\"");
		}
		assertThat(upstream.seen()).as("beta got the call")
			.anyMatch(seen -> seen.body() != null && seen.body().contains("tools/call"));
	}

	/**
	 * F4, for what goes to every member: a held {@code tools/list} of a key narrowed off one member is served on the
	 * members it may still use (the lost member refuses its part, as an unavailable member).
	 */
	@Test
	void aVirtualServersListHeldWhileItsKeyLostAMemberIsServedOnTheMembersLeft() throws Exception {
		McpSession session = McpSession.open(live.http("X-Api-Key", ALICE), "duo");
		try (HeldPost held = held("duo", session.id(), "{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"tools/list\"}")) {
			live.reload(config(key("alice", ALICE, "[beta]") + key("bob", BOB, "[alpha]")),
					ReloadOutcome.APPLIED);

			RawSocketHttp.Response answer = held.finish();
			assertThat(answer.status()).as("the list: %s", answer.body()).isEqualTo(200);
			assertThat(answer.body()).contains("\"id\":16").contains("beta_echo").doesNotContain("alpha_echo");
		}
	}

	/** A tools/call of {@code tool} on {@code server}'s session, alice's key presented, held after its first byte. */
	private static HeldPost held(String server, String sessionId, int id, String tool) throws Exception {
		return held(server, sessionId, HeldPost.toolsCall(id, tool));
	}

	/** A POST of {@code message} on {@code server}'s session, alice's key presented, held after its first byte. */
	private static HeldPost held(String server, String sessionId, String message) throws Exception {
		return HeldPost.begin(TwoRelaysOverRedis.port(live.relay().context()), "X-Api-Key", ALICE, server, sessionId,
				message);
	}

	/** The requests of {@code rpcMethod} to {@code server} recorded ({@code mcp.relay.requests}, any outcome). */
	private static double recorded(String server, String rpcMethod) {
		return live.relay().context().getBean(MeterRegistry.class).find(RelayMeters.REQUESTS)
			.tag(RelayMeters.SERVER, server)
			.tag(RelayMeters.RPC_METHOD, rpcMethod)
			.counters().stream().mapToDouble(Counter::count).sum();
	}

	private static void assertNoCallForwarded() {
		assertThat(callForwarded()).as("the upstream got nothing of the call: %s", upstream.seen()).isFalse();
	}

	private static boolean callForwarded() {
		return upstream.seen().stream().anyMatch(seen -> seen.body() != null && seen.body().contains("tools/call"));
	}

	private static void assertRefused(RawSocketHttp.Response answer, int id) throws Exception {
		assertThat(answer.status()).as("the late call: %s", answer.body()).isEqualTo(403);
		JsonNode error = new ObjectMapper().readTree(answer.body());
		assertThat(error.path("id").asInt()).isEqualTo(id);
		assertThat(error.at("/error/data/reason").asText()).isEqualTo("access_withdrawn");
	}

	private static String key(String client, String key, String servers) {
		return ApiKeysReloadTest.key(client, Sha256.hex(key), servers);
	}

	static String config(String keys) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: api-key\n    api-keys:\n"
				+ keys + "  servers:\n    alpha:\n      url: " + upstream.url("/mcp") + "\n    beta:\n      url: "
				+ upstream.url("/mcp") + "\n  virtual-servers:\n    duo:\n      members: [alpha, beta]\n";
	}

}
