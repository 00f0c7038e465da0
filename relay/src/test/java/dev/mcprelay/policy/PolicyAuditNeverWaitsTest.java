package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Review 43f F-A: an audit-mode rule that reads a tool's annotations made every call of its server wait for the
 * relay's own listing of the server's tools once the kept definition was older than {@code annotations-max-age}, the
 * whole listing bound (48 s at the default timeouts) while the server's {@code tools/list} hung; beside an enforced
 * rule that reads only the name, too. Now a rule in audit mode never makes a call wait: the call is decided from the
 * definition kept, of any age, or without one when none is kept (the audit rule counting an {@code error}), and the
 * relay lists the view again in the background, at most once a listing bound. Here the server holds every
 * {@code tools/list} answer (scripted, {@link PolicyTestServer}: no real server holds its list on demand), the relay's
 * listing bound is far past the client's timeout, and each call must be answered while the server holds them; an
 * enforced name rule still refuses from the kept definition.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyAuditNeverWaitsTest {

	static final PolicyTestServer SERVER = new PolicyTestServer();

	static final Duration MAX_AGE = Duration.ofMillis(300);

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry meters;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "none");
		for (String server : List.of("audited", "unlisted", "mixed")) {
			registry.add("mcp-relay.servers." + server + ".url", () -> SERVER.url("/slow/mcp"));
			// a listing bound (four fifths of it, 96 s) far past the client's own timeout (20 s, RawHttp): a call
			// that waited for the relay's listing would never be answered in this test
			registry.add("mcp-relay.servers." + server + ".timeouts.non-streaming", () -> "120s");
			registry.add("mcp-relay.servers." + server + ".tools.annotations-max-age", () -> MAX_AGE.toMillis() + "ms");
		}
		registry.add("mcp-relay.policies[0].name", () -> "try-read-only");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "audited");
		registry.add("mcp-relay.policies[0].servers[1]", () -> "unlisted");
		registry.add("mcp-relay.policies[0].servers[2]", () -> "mixed");
		registry.add("mcp-relay.policies[0].deny",
				() -> "mcp.method == \"tools/call\" && !mcp.tool.annotations.?readOnlyHint.orValue(false)");
		registry.add("mcp-relay.policies[0].enforce", () -> "false");
		registry.add("mcp-relay.policies[1].name", () -> "no-delete");
		registry.add("mcp-relay.policies[1].servers[0]", () -> "mixed");
		registry.add("mcp-relay.policies[1].deny", () -> "mcp.tool.name == \"delete_file\"");
	}

	@AfterAll
	static void stop() {
		SERVER.releaseLists();
		SERVER.close();
	}

	@Test
	void whileTheToolListHangsNoCallWaitsForItWhereOnlyAuditRulesNeedItsFreshness() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession audited = McpSession.open(http, "audited");
		McpSession unlisted = McpSession.open(http, "unlisted");
		McpSession mixed = McpSession.open(http, "mixed");
		assertThat(last(audited.post(TOOLS_LIST)).at("/result/tools").size()).as("the client lists: kept").isEqualTo(3);
		assertThat(last(mixed.post(TOOLS_LIST)).at("/result/tools").size()).as("delete_file hidden").isEqualTo(2);
		Thread.sleep(MAX_AGE.toMillis() + 1); // what is kept is now older than annotations-max-age

		SERVER.holdLists();
		SERVER.clear();
		double audited0 = decisions("audited", "audited");
		double unlistedErrors0 = decisions("unlisted", "error");

		assertThat(text(call(audited, 3, "delete_file"))).as("decided from the old definition, audited, not refused")
			.isEqualTo("called delete_file");
		assertThat(text(call(audited, 4, "read_file"))).isEqualTo("called read_file");
		assertThat(text(call(unlisted, 3, "read_file"))).as("nothing kept: decided without it")
			.isEqualTo("called read_file");
		assertThat(text(call(mixed, 3, "read_file"))).as("the enforced name rule has the kept name")
			.isEqualTo("called read_file");
		assertThat(call(mixed, 4, "delete_file").at("/error/message").asText()).as("refused by the enforced rule")
			.isEqualTo("Unknown tool: delete_file");

		assertThat(SERVER.count("tools/list")).as("one listing in the background per view at most, never one per call")
			.isLessThanOrEqualTo(3);
		assertThat(SERVER.count("tools/call")).isEqualTo(4);
		assertThat(decisions("audited", "audited") - audited0).as("delete_file, as it would refuse it").isEqualTo(1);
		assertThat(decisions("unlisted", "error") - unlistedErrors0).as("no definition: the audit rule's error")
			.isEqualTo(1);
	}

	private static final String TOOLS_LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";

	private double decisions(String server, String outcome) {
		io.micrometer.core.instrument.Counter counter = meters.find(PolicyMeters.DECISIONS)
			.tag("policy", "try-read-only")
			.tag("server", server)
			.tag("outcome", outcome)
			.counter();
		return counter == null ? 0 : counter.count();
	}

	private static JsonNode call(McpSession session, int id, String tool) {
		return last(session.post(RawHttp.toolsCall(id, tool)));
	}

	private static String text(JsonNode answer) {
		assertThat(answer.has("result")).as("%s", answer).isTrue();
		return answer.at("/result/content/0/text").asText();
	}

	private static JsonNode last(java.net.http.HttpResponse<String> response) {
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as(response.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

}
