package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.RawHttp;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Review 43e F1: an audit-mode policy ({@code enforce: false}) refuses nothing, also when it reads a tool's definition
 * the relay does not have: a name the server did not list goes upstream, as on a server with no policy, and a call
 * while the server's tool list cannot be listed goes upstream too, the audit policy counting an {@code error}. (An
 * enforced policy that reads the tool still refuses both: {@link PolicyUpstreamViewsTest}, {@link PolicyUnknownNamesTest}.)
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyAuditModeTest {

	static final PolicyTestServer SERVER = new PolicyTestServer();

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry meters;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "none");
		registry.add("mcp-relay.servers.audited.url", () -> SERVER.url("/mcp"));
		registry.add("mcp-relay.servers.audited-nolist.url", () -> SERVER.url("/nolist/mcp"));
		registry.add("mcp-relay.policies[0].name", () -> "try-read-only");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "audited");
		registry.add("mcp-relay.policies[0].servers[1]", () -> "audited-nolist");
		registry.add("mcp-relay.servers.audited-unlisted.url", () -> SERVER.url("/mcp"));
		registry.add("mcp-relay.policies[0].servers[2]", () -> "audited-unlisted");
		registry.add("mcp-relay.policies[0].deny",
				() -> "mcp.method == \"tools/call\" && !mcp.tool.annotations.?readOnlyHint.orValue(false)");
		registry.add("mcp-relay.policies[0].enforce", () -> "false");
	}

	@AfterAll
	static void stop() {
		SERVER.close();
	}

	@Test
	void whatItWouldRefuseGoesUpstreamAndIsCounted() {
		// the client lists first, as clients do: an audit rule decides from the definition the relay keeps, and never
		// makes a call wait for a listing of the relay's own (review 43f F-A)
		RawHttp http = new RawHttp(port);
		assertThat(RawHttp.messagesOf(http.send(http.post("audited",
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"))).get(0).at("/result/tools").size())
			.isEqualTo(3);
		double before = decisions("audited", "audited");
		assertThat(call("audited", "delete_file").at("/result/content/0/text").asText()).isEqualTo("called delete_file");
		assertThat(decisions("audited", "audited") - before).isEqualTo(1);
	}

	@Test
	void aNameTheServerDidNotListGoesUpstreamAsWithNoPolicy() {
		SERVER.clear();
		JsonNode ghost = call("audited", "ghost");
		assertThat(ghost.at("/error/message").asText()).as("the server's own answer, not the relay's")
			.isEqualTo("Tool ghost not found");
		assertThat(SERVER.count("tools/call")).isEqualTo(1);
	}

	@Test
	void aCallWhileTheListCannotBeListedGoesUpstreamAndCountsTheAuditPolicysError() {
		SERVER.clear();
		double before = decisions("audited-nolist", "error");
		JsonNode called = call("audited-nolist", "read_file");
		assertThat(called.at("/result/content/0/text").asText()).as(called.toString()).isEqualTo("called read_file");
		assertThat(SERVER.count("tools/call")).isEqualTo(1);
		assertThat(decisions("audited-nolist", "error") - before).isEqualTo(1);
	}

	/**
	 * Review 43f F-A: with nothing kept of the server's tools, a call is decided without the definition at once (the
	 * audit rule's error) and the relay lists the tools in the background, so that the next call is decided from them.
	 */
	@Test
	void aCallWithNothingKeptIsNotKeptWaitingAndTheToolsAreListedInTheBackground() {
		double errors = decisions("audited-unlisted", "error");
		double audited = decisions("audited-unlisted", "audited");
		assertThat(call("audited-unlisted", "delete_file").at("/result/content/0/text").asText())
			.isEqualTo("called delete_file");
		assertThat(decisions("audited-unlisted", "error") - errors).as("no definition yet").isEqualTo(1);

		org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).untilAsserted(() -> {
			assertThat(call("audited-unlisted", "delete_file").at("/result/content/0/text").asText())
				.isEqualTo("called delete_file");
			assertThat(decisions("audited-unlisted", "audited") - audited).as("decided from the listed definition")
				.isPositive();
		});
	}

	private double decisions(String server, String outcome) {
		return meters.find(PolicyMeters.DECISIONS).tag("policy", "try-read-only").tag("server", server)
			.tag("outcome", outcome).counters().stream().mapToDouble(counter -> counter.count()).sum();
	}

	private JsonNode call(String server, String tool) {
		RawHttp http = new RawHttp(port);
		List<JsonNode> messages = RawHttp.messagesOf(http.send(http.post(server, RawHttp.toolsCall(2, tool))));
		return messages.get(messages.size() - 1);
	}

}
