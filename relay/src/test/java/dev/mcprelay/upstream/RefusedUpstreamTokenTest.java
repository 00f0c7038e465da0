package dev.mcprelay.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.ProtectedMcpUpstream;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SpringAuthorizationServer;

/**
 * A token the upstream refuses (401) while many requests use it, against a real authorization server issuing tokens
 * that live ten minutes (so that no renewal happens during the test, however loaded the machine) and a real MCP server
 * that has revoked the token the relay holds and refuses a hundred calls sent with it at once, once all have arrived:
 * every request is refused once and retried with a new token, and the
 * relay asks for that new token once for all of them, never once per refusal (which, with a token endpoint that takes
 * 300 ms, met the authorization server with a request per refused call).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RefusedUpstreamTokenTest {

	static final String AUDIENCE = "https://protected-mcp.example";

	static final SpringAuthorizationServer AUTH = new SpringAuthorizationServer(Duration.ofMinutes(10));

	static final ProtectedMcpUpstream UPSTREAM = new ProtectedMcpUpstream(AUTH, AUDIENCE);

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.revoked.url", UPSTREAM::url);
		registry.add("mcp-relay.servers.revoked.timeouts.non-streaming", () -> "30s");
		registry.add("mcp-relay.servers.revoked.oauth2.token-uri", AUTH::tokenUri);
		registry.add("mcp-relay.servers.revoked.oauth2.client-id", () -> SpringAuthorizationServer.RELAY_CLIENT);
		registry.add("mcp-relay.servers.revoked.oauth2.client-secret", () -> SpringAuthorizationServer.RELAY_SECRET);
		registry.add("mcp-relay.servers.revoked.oauth2.audience", () -> AUDIENCE);
	}

	@AfterAll
	static void stop() {
		UPSTREAM.close();
		AUTH.close();
	}

	@Test
	void aHundredCallsTheUpstreamRefusesWithOneTokenAskForOneNewToken() throws Exception {
		assertThat(whoami().at("/result/content/0/text").asText()).isEqualTo(SpringAuthorizationServer.RELAY_CLIENT);
		List<ProtectedMcpUpstream.Accepted> accepted = UPSTREAM.accepted();
		String kept = accepted.get(accepted.size() - 1).token();
		UPSTREAM.revoke(kept, 100);
		AUTH.mode(SpringAuthorizationServer.Mode.SLOW, Duration.ofMillis(300));
		int before = AUTH.tokenRequests();
		AUTH.resetMostAtOnce();

		List<JsonNode> answers = new ArrayList<>();
		ExecutorService callers = Executors.newFixedThreadPool(100);
		try {
			List<CompletableFuture<JsonNode>> calls = new ArrayList<>();
			for (int i = 0; i < 100; i++) {
				calls.add(CompletableFuture.supplyAsync(this::whoami, callers));
			}
			calls.forEach(call -> answers.add(call.join()));
		}
		finally {
			callers.shutdownNow();
		}

		assertThat(answers).allSatisfy(answer -> assertThat(answer.at("/result/content/0/text").asText())
			.as(answer.toString()).isEqualTo(SpringAuthorizationServer.RELAY_CLIENT));
		assertThat(UPSTREAM.rejectedTokens()).as("every call was sent with the revoked token, and refused").isEqualTo(100);
		assertThat(AUTH.tokenRequests() - before).as("one new token for every refused call").isEqualTo(1);
		assertThat(AUTH.mostTokenRequestsAtOnce()).isEqualTo(1);
		assertThat(UPSTREAM.accepted().stream().skip(accepted.size()).map(ProtectedMcpUpstream.Accepted::token))
			.as("every retry carried the one new token").hasSize(100).doesNotContain(kept).containsOnly(
					UPSTREAM.accepted().get(UPSTREAM.accepted().size() - 1).token());
	}

	private JsonNode whoami() {
		RawHttp http = new RawHttp(port);
		List<JsonNode> messages = RawHttp.messagesOf(http.send(http.post("revoked", RawHttp.toolsCall(1, "whoami"))));
		assertThat(messages).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

}
