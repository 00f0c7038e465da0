package dev.mcprelay.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

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
 * {@code oauth2} with {@code grant: token-exchange} (RFC 8693), security mode {@code jwt}, against a real
 * authorization server (Spring Authorization Server, which issued the callers' tokens and exchanges them) and a real
 * MCP server that accepts only tokens for its own audience: the upstream sees each caller's own subject, never the
 * caller's token (no passthrough); an exchanged token is kept per caller until it is due for renewal.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class TokenExchangeTest {

	static final String RELAY_AUDIENCE = "mcp-relay-test";

	static final String UPSTREAM_AUDIENCE = "https://protected-mcp.example";

	static final SpringAuthorizationServer AUTH = new SpringAuthorizationServer(Duration.ofSeconds(30));

	static final ProtectedMcpUpstream UPSTREAM = new ProtectedMcpUpstream(AUTH, UPSTREAM_AUDIENCE);

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "jwt");
		registry.add("mcp-relay.security.jwt.issuer-uri", AUTH::issuer);
		registry.add("mcp-relay.security.jwt.audience", () -> RELAY_AUDIENCE);
		registry.add("mcp-relay.servers.acting.url", UPSTREAM::url);
		registry.add("mcp-relay.servers.acting.oauth2.grant", () -> "token-exchange");
		registry.add("mcp-relay.servers.acting.oauth2.token-uri", AUTH::tokenUri);
		registry.add("mcp-relay.servers.acting.oauth2.client-id", () -> SpringAuthorizationServer.RELAY_CLIENT);
		registry.add("mcp-relay.servers.acting.oauth2.client-secret", () -> SpringAuthorizationServer.RELAY_SECRET);
		registry.add("mcp-relay.servers.acting.oauth2.audience", () -> UPSTREAM_AUDIENCE);
	}

	@AfterAll
	static void stop() {
		UPSTREAM.close();
		AUTH.close();
	}

	@Test
	void theUpstreamSeesEachCallersSubjectThroughAnExchangedTokenNeverTheCallersOwn() {
		String alice = AUTH.callerToken(RELAY_AUDIENCE);
		String bob = AUTH.otherCallerToken(RELAY_AUDIENCE);
		int before = AUTH.tokenRequests();

		List<String> subjects = List.of(whoami(alice), whoami(alice), whoami(bob), whoami(alice));

		assertThat(subjects).containsExactly(SpringAuthorizationServer.CALLER_CLIENT,
				SpringAuthorizationServer.CALLER_CLIENT, SpringAuthorizationServer.OTHER_CALLER_CLIENT,
				SpringAuthorizationServer.CALLER_CLIENT);
		assertThat(AUTH.tokenRequests() - before).as("one exchange per caller, kept for its later calls").isEqualTo(2);
		assertThat(UPSTREAM.accepted()).extracting(ProtectedMcpUpstream.Accepted::token)
			.as("never the caller's own token").doesNotContain(alice, bob);
	}

	@Test
	void anExchangeTheAuthorizationServerRefusesIsAClearError() {
		String carol = AUTH.callerToken(RELAY_AUDIENCE);
		AUTH.mode(SpringAuthorizationServer.Mode.REFUSE, null);
		try {
			HttpResponse<String> answer = post(carol);

			assertThat(answer.statusCode()).isEqualTo(502);
			assertThat(RawHttp.json(answer.body()).at("/error/data/reason").asText()).isEqualTo("upstream_auth");
			assertThat(answer.body()).doesNotContain(carol).doesNotContain(SpringAuthorizationServer.RELAY_SECRET);
		}
		finally {
			AUTH.mode(SpringAuthorizationServer.Mode.NORMAL, null);
		}
	}

	private String whoami(String token) {
		HttpResponse<String> answer = post(token);
		List<JsonNode> messages = RawHttp.messagesOf(answer);
		assertThat(messages).as(answer.statusCode() + " " + answer.body()).isNotEmpty();
		return messages.get(messages.size() - 1).at("/result/content/0/text").asText();
	}

	private HttpResponse<String> post(String token) {
		RawHttp http = new RawHttp(port, "Authorization", "Bearer " + token);
		return http.send(http.post("acting", RawHttp.toolsCall(1, "whoami")));
	}

}
