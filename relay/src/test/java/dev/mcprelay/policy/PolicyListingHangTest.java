package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * A server that never answers the {@code tools/list} the relay sends to refresh a definition older than its
 * {@code tools.annotations-max-age} (cold review 43d, finding 3: the listing was bounded by the server's
 * {@code timeouts.non-streaming}, the very bound of the request's chain, so the chain's timeout answered first, with a
 * bare "Internal error"). The listing is bounded strictly inside the request's bound (four fifths of it,
 * {@code TimeoutProperties#ownWork}), so the call is refused as the policies refuse what they cannot decide: -32603,
 * {@code data.reason} {@code policy_undecidable}, saying the list did not answer; it never goes upstream. The server
 * is scripted ({@link PolicyTestServer}): no real server holds its answer on demand.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyListingHangTest {

	static final PolicyTestServer SERVER = new PolicyTestServer();

	static final Duration MAX_AGE = Duration.ofMillis(300);

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "none");
		registry.add("mcp-relay.servers.hangs.url", () -> SERVER.url("/slow/mcp"));
		// the request's own bound: long enough for a cold relay's first exchanges on a loaded machine (its initialize,
		// the first listing), which run under it too; the hanging re-list is refused at four fifths of it
		registry.add("mcp-relay.servers.hangs.timeouts.non-streaming", () -> "10s");
		registry.add("mcp-relay.servers.hangs.tools.annotations-max-age", () -> MAX_AGE.toMillis() + "ms");
		registry.add("mcp-relay.policies[0].name", () -> "read-only");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "*");
		registry.add("mcp-relay.policies[0].deny",
				() -> "mcp.method == \"tools/call\" && !mcp.tool.annotations.?readOnlyHint.orValue(false)");
	}

	@AfterAll
	static void stop() {
		SERVER.releaseLists();
		SERVER.close();
	}

	@Test
	void aRelistingThatNeverAnswersRefusesTheCallAsUndecidableWithinItsBound() throws Exception {
		McpSession session = McpSession.open(new RawHttp(port), "hangs");
		assertThat(call(session, 2).has("result")).as("listed, read-only").isTrue();

		Thread.sleep(MAX_AGE.toMillis() + 1);
		var arrived = SERVER.holdLists();
		SERVER.clear();
		JsonNode refused = call(session, 3);
		assertThat(arrived).as("the relay listed again, and the server holds its answer").isDone();
		assertThat(refused.at("/error/code").asInt()).as("%s", refused).isEqualTo(-32603);
		assertThat(refused.at("/error/data/reason").asText()).as("%s", refused).isEqualTo("policy_undecidable");
		assertThat(refused.at("/error/message").asText())
			.isEqualTo("The relay cannot answer this request now: the tools/list of server 'hangs' did not answer "
					+ "within 8000 ms");
		assertThat(SERVER.count("tools/call")).as("the call never went upstream").isZero();
	}

	private static JsonNode call(McpSession session, int id) {
		List<JsonNode> messages = RawHttp.messagesOf(session.post(RawHttp.toolsCall(id, "read_file")));
		assertThat(messages).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

}
