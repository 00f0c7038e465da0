package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestAuthorizationServer;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * In {@code security.mode: jwt}, real tokens from a real JWK Set: a token opens each member whose
 * {@code allowed-scopes} it meets, and only those are listed and callable through the virtual server; a token that
 * opens none is refused at the door with 403; another subject cannot use the session.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualServerJwtAccessTest {

	static final TestAuthorizationServer AUTH = new TestAuthorizationServer();

	static final String AUDIENCE = "mcp-relay-test";

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "jwt");
		registry.add("mcp-relay.security.jwt.issuer-uri", AUTH::issuer);
		registry.add("mcp-relay.security.jwt.audience", () -> AUDIENCE);
		registry.add("mcp-relay.servers.alpha.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.alpha.allowed-scopes[0]", () -> "alpha.use");
		registry.add("mcp-relay.servers.beta.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.beta.allowed-scopes[0]", () -> "beta.use");
		registry.add("mcp-relay.virtual-servers.all.members", () -> "alpha,beta");
	}

	@AfterAll
	static void stop() {
		AUTH.close();
	}

	@Test
	void aTokenOpensTheMembersWhoseScopesItCarries() {
		McpSession alphaOnly = McpSession.open(caller("alice", "alpha.use"), "all");
		McpSession both = McpSession.open(caller("bob", "alpha.use beta.use"), "all");

		assertThat(toolNames(alphaOnly)).contains("alpha_echo").noneMatch(name -> name.startsWith("beta_"));
		assertThat(toolNames(both)).contains("alpha_echo", "beta_echo");
		JsonNode refused = RawHttp.json(alphaOnly.post(RawHttp.toolsCall(3, "beta_echo")).body());
		assertThat(refused.at("/error/data/reason").asText()).isEqualTo("unknown_tool");
	}

	@Test
	void aTokenThatOpensNoMemberIsRefusedAtTheDoor() {
		RawHttp carol = caller("carol", "other.use");

		HttpResponse<String> answer = carol.send(carol.post("all", McpSession.initialize(1)));

		assertThat(answer.statusCode()).isEqualTo(403);
		assertThat(RawHttp.json(answer.body()).at("/error/data/reason").asText()).isEqualTo("insufficient_scope");
	}

	@Test
	void anotherSubjectCannotUseTheSession() {
		McpSession alice = McpSession.open(caller("alice", "alpha.use beta.use"), "all");
		RawHttp mallory = caller("mallory", "alpha.use beta.use");

		HttpResponse<String> taken = mallory.send(mallory.post("all", RawHttp.toolsCall(4, "alpha_echo"))
			.header("Mcp-Session-Id", alice.id()));

		assertThat(taken.statusCode()).isEqualTo(404);
	}

	private RawHttp caller(String subject, String scope) {
		return new RawHttp(port, "Authorization", "Bearer " + AUTH.token(AUDIENCE, subject, scope, Map.of()));
	}

	private static List<String> toolNames(McpSession session) {
		JsonNode listed = RawHttp.json(session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}").body());
		List<String> names = new ArrayList<>();
		listed.path("result").path("tools").forEach(tool -> names.add(tool.path("name").asText()));
		return names;
	}

}
