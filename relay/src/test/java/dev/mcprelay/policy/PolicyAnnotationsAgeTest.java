package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * A real MCP server (the SDK's) republishes a tool as no longer read-only while no client holds a GET stream open, so
 * its {@code list_changed} reaches no one (cold review L, finding 2, t5_noget.py: the relay decided every later call
 * from the old definition until the client listed again). A rule over annotations decides from a definition no older
 * than the server's {@code tools.annotations-max-age}: past it, the relay lists the tools again before the next call,
 * and refuses the call the new definition refuses, without it going upstream; within it (a server whose age is the
 * default, a minute), the call is still decided from what the relay knows, as documented.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyAnnotationsAgeTest {

	static final SdkMcpUpstream UPSTREAM = new SdkMcpUpstream();

	static final Duration MAX_AGE = Duration.ofSeconds(1);

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "none");
		registry.add("mcp-relay.servers.brisk.url", () -> UPSTREAM.url("/mcp"));
		registry.add("mcp-relay.servers.brisk.tools.annotations-max-age", () -> MAX_AGE.toMillis() + "ms");
		registry.add("mcp-relay.servers.patient.url", () -> UPSTREAM.url("/mcp"));
		registry.add("mcp-relay.policies[0].name", () -> "read-only");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "*");
		registry.add("mcp-relay.policies[0].deny",
				() -> "mcp.method == \"tools/call\" && !mcp.tool.annotations.?readOnlyHint.orValue(false)");
	}

	@AfterEach
	void readOnlyAgain() {
		UPSTREAM.republish("secret_audit", true);
	}

	@AfterAll
	static void stop() throws Exception {
		UPSTREAM.close();
	}

	@Test
	void aToolThatTurnsDestructiveWithNoStreamOpenIsRefusedOnceItsDefinitionIsTooOld() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession brisk = McpSession.open(http, "brisk");
		McpSession patient = McpSession.open(http, "patient");
		assertThat(call(brisk, 2, "secret_audit").has("result")).as("read-only as published").isTrue();
		assertThat(call(patient, 2, "secret_audit").has("result")).as("read-only as published").isTrue();

		UPSTREAM.republish("secret_audit", false); // its list_changed has no GET stream to go on
		long republished = System.nanoTime();
		UPSTREAM.clearSeen();
		assertThat(call(patient, 3, "secret_audit").has("result"))
			.as("within the default age, decided from what the relay knows").isTrue();

		// the definition brisk's call is decided from was seen before the republish: once MAX_AGE has passed since
		// then, it is older than brisk's annotations-max-age
		Thread.sleep(Math.max(0, MAX_AGE.toMillis() - (System.nanoTime() - republished) / 1_000_000) + 1);
		UPSTREAM.clearSeen();
		JsonNode refused = call(brisk, 4, "secret_audit");
		assertThat(refused.path("error").path("message").asText()).as("%s", refused)
			.isEqualTo("Unknown tool: secret_audit");
		assertThat(UPSTREAM.seen()).as("listed again; the call never went upstream")
			.anyMatch(seen -> seen.body().contains("\"tools/list\""))
			.noneMatch(seen -> seen.body().contains("\"tools/call\""));
	}

	private static JsonNode call(McpSession session, int id, String tool) {
		return RawHttp.messagesOf(session.post(RawHttp.toolsCall(id, tool))).get(0);
	}

}
