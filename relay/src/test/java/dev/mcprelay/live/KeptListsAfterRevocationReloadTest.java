package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.mcprelay.Sha256;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RawSocketHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Review 44i's A: a list held across a reload that narrowed its key off one member of a virtual server is answered
 * without that member's tools, also when the answer comes from what the relay keeps and asks no member: an MCP
 * 2026-07-28 client's {@code tools/list} (its pages kept in {@code ListCache}) and a virtual server's tool search (its
 * merged catalogue kept). Before the mend both listed the lost member's tools, the search saying they were "now
 * available to call", and so for a member whose server the reload removed. The members are the MCP Java SDK's stateless server, twice.
 */
class KeptListsAfterRevocationReloadTest {

	private static final String ALICE = "alice-key-for-kept-lists";

	private static final String META = "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
			+ "{\"name\":\"kept-lists\",\"version\":\"1\"}}}";

	private static final String SEARCH = "{\"name\":\"search_available_tools\",\"arguments\":{\"query\":\"echo\"}}";

	static SdkMcpUpstream upstream;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config("[alpha, beta]"))
		.peer(() -> upstream = new SdkMcpUpstream());

	@Test
	void aKeptListHeldWhileItsKeyLostAMemberListsOnlyTheMembersLeft() throws Exception {
		RawHttp alice = live.http("X-Api-Key", ALICE);
		String before = alice.send(alice.post("duo", list(1)).header("MCP-Protocol-Version", "2026-07-28")
			.header("Mcp-Method", "tools/list")).body();
		assertThat(before).as("the list the relay keeps").contains("alpha_echo", "beta_echo");
		try (HeldPost held = HeldPost.beginWithoutSession(port(), "X-Api-Key", ALICE, "duo", "tools/list", list(2))) {
			live.reload(config("[beta]"), ReloadOutcome.APPLIED);

			RawSocketHttp.Response answer = held.finish();
			assertThat(answer.status()).as("the held list: %s", answer.body()).isEqualTo(200);
			assertThat(answer.body()).contains("\"id\":2").contains("beta_echo").doesNotContain("alpha_echo");
		}
	}

	@Test
	void aToolSearchHeldWhileItsKeyLostAMemberFindsOnlyTheMembersLeftsTools() throws Exception {
		RawHttp alice = live.http("X-Api-Key", ALICE);
		McpSession first = McpSession.open(alice, "searching");
		assertThat(first.post(call(1)).body()).as("the catalogue the relay keeps").contains("alpha_echo", "beta_echo");
		McpSession second = McpSession.open(alice, "searching");
		try (HeldPost held = HeldPost.begin(port(), "X-Api-Key", ALICE, "searching", second.id(), call(2))) {
			live.reload(config("[beta]"), ReloadOutcome.APPLIED);

			RawSocketHttp.Response answer = held.finish();
			assertThat(answer.status()).as("the held search: %s", answer.body()).isEqualTo(200);
			assertThat(answer.body()).contains("\"id\":2").contains("beta_echo").doesNotContain("alpha_echo");
		}
	}

	/** The same for a member whose server the reload removed, through a virtual server of every server. */
	@Test
	void aKeptListHeldWhileAMembersServerWasRemovedListsOnlyTheMembersLeft() throws Exception {
		live.reload(config("[\"*\"]"), ReloadOutcome.APPLIED);
		RawHttp alice = live.http("X-Api-Key", ALICE);
		String before = alice.send(alice.post("every", list(3)).header("MCP-Protocol-Version", "2026-07-28")
			.header("Mcp-Method", "tools/list")).body();
		assertThat(before).as("the list the relay keeps").contains("alpha_echo", "beta_echo");
		try (HeldPost held = HeldPost.beginWithoutSession(port(), "X-Api-Key", ALICE, "every", "tools/list", list(4))) {
			live.reload("server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: api-key\n"
					+ "    api-keys:\n      - client: alice\n        key-sha256: \"" + Sha256.hex(ALICE) + "\"\n"
					+ "        servers: [\"*\"]\n  servers:\n    beta:\n      url: " + upstream.url("/stateless")
					+ "\n  virtual-servers:\n    every:\n      members: [\"*\"]\n", ReloadOutcome.APPLIED);

			RawSocketHttp.Response answer = held.finish();
			assertThat(answer.status()).as("the held list: %s", answer.body()).isEqualTo(200);
			assertThat(answer.body()).contains("\"id\":4").contains("beta_echo").doesNotContain("alpha_echo");
		}
	}

	private static String list(int id) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\",\"params\":" + META + "}";
	}

	private static String call(int id) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":" + SEARCH + "}";
	}

	private static int port() {
		return TwoRelaysOverRedis.port(live.relay().context());
	}

	static String config(String servers) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: api-key\n    api-keys:\n"
				+ "      - client: alice\n        key-sha256: \"" + Sha256.hex(ALICE) + "\"\n        servers: " + servers
				+ "\n  servers:\n    alpha:\n      url: " + upstream.url("/stateless") + "\n    beta:\n      url: "
				+ upstream.url("/stateless") + "\n  virtual-servers:\n    duo:\n      members: [alpha, beta]\n"
				+ "    searching:\n      members: [alpha, beta]\n      tool-search:\n        enabled: true\n"
				+ "    every:\n      members: [\"*\"]\n";
	}

}
