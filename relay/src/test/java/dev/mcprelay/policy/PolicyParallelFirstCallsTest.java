package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * Review 43n M-1: an agent's first calls of four tools at once, in one view of one caller, under a rule that reads the
 * tool. Each name the view has not seen is a listing of its own (read until a page names it, review 43h F-3), and a
 * caller's listings past {@value ServerListings#MAX_PER_CALLER} were refused at once: about half such calls were
 * answered -32603 {@code policy_undecidable} ("try again shortly") though nothing failed. They wait for a turn of the
 * caller's own now ({@link ServerListings}): each call is decided, the allowed ones run, the denied one is an unknown
 * tool. The SDK's stateless server, one page of tools.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyParallelFirstCallsTest {

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "none");
		registry.add("mcp-relay.servers.tools.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.policies[0].name", () -> "no-destructive");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "tools");
		registry.add("mcp-relay.policies[0].deny",
				() -> "mcp.method == \"tools/call\" && mcp.tool.annotations.?destructiveHint.orValue(false)");
	}

	@Test
	void fourFirstCallsOfOneViewAtOnceAreEachDecided() throws Exception {
		McpSession session = McpSession.open(new RawHttp(port), "tools");
		List<String> tools = List.of("echo", "secret_audit", "whoami", "secret_admin");
		ExecutorService clients = Executors.newFixedThreadPool(tools.size());
		try {
			CountDownLatch ready = new CountDownLatch(tools.size());
			List<CompletableFuture<JsonNode>> calls = tools.stream().map(tool -> CompletableFuture.supplyAsync(() -> {
				ready.countDown();
				try {
					ready.await();
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
				}
				List<JsonNode> messages = RawHttp.messagesOf(session.post(RawHttp.toolsCall(tool, tool)));
				return messages.get(messages.size() - 1);
			}, clients)).toList();
			Map<String, JsonNode> answers = new java.util.LinkedHashMap<>();
			for (int i = 0; i < tools.size(); i++) {
				answers.put(tools.get(i), calls.get(i).get(120, TimeUnit.SECONDS));
			}
			for (String allowed : List.of("echo", "secret_audit", "whoami")) {
				assertThat(answers.get(allowed).has("result")).as("%s ran: %s", allowed, answers).isTrue();
			}
			assertThat(answers.get("secret_admin").at("/error/message").asText()).as("%s", answers)
				.isEqualTo("Unknown tool: secret_admin");
		}
		finally {
			clients.shutdownNow();
		}
	}

}
