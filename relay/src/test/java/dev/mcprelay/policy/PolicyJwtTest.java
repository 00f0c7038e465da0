package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestAuthorizationServer;

/**
 * Policies over real JWTs (RS256 from a JWK Set the test serves): the docs' recipe, read-only tools unless the token's
 * {@code groups} claim holds {@code admins}, for an admin, a developer, a token without {@code groups} and one with a
 * scope the rule also reads; listing and calling agree for each.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyJwtTest {

	static final TestAuthorizationServer AUTH = new TestAuthorizationServer();

	static final SdkMcpUpstream UPSTREAM = new SdkMcpUpstream();

	static final String AUDIENCE = "mcp-relay-policies";

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "jwt");
		registry.add("mcp-relay.security.jwt.issuer-uri", AUTH::issuer);
		registry.add("mcp-relay.security.jwt.audience", () -> AUDIENCE);
		registry.add("mcp-relay.servers.github.url", () -> UPSTREAM.url("/stateless"));
		registry.add("mcp-relay.servers.github.arguments.reserved-prefix", () -> "");
		registry.add("mcp-relay.policies[0].name", () -> "read-only-unless-admin");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "*");
		registry.add("mcp-relay.policies[0].deny", () -> "mcp.method == \"tools/call\" "
				+ "&& !mcp.tool.annotations.?readOnlyHint.orValue(false) "
				+ "&& !(\"admins\" in caller.claims.?groups.orValue([])) && !caller.scopes.exists(s, s == \"tools:all\")");
	}

	@AfterAll
	static void stop() throws Exception {
		AUTH.close();
		UPSTREAM.close();
	}

	@Test
	void groupsAndScopesFromTheTokenDecideListsAndCallsAlike() {
		Set<String> everything = Set.of("echo", "secret_admin", "secret_audit", "whoami");
		Set<String> readOnly = Set.of("echo", "secret_audit");
		check(token("root", "mcp", Map.of("groups", List.of("dev", "admins"))), everything);
		check(token("dana", "mcp", Map.of("groups", List.of("dev"))), readOnly);
		check(token("bot", "mcp", Map.of()), readOnly);
		check(token("ci", "mcp tools:all", Map.of("groups", "admins")), everything);
	}

	/**
	 * Tokens of one subject that carry other groups or scopes are each decided by their own claims, one after the
	 * other and back again: what the relay keeps per caller (its verdicts, its view of the server) is kept per accepted
	 * token, never per subject (cold review L asked).
	 */
	@Test
	void tokensOfOneSubjectWithOtherGroupsOrScopesAreEachDecidedByTheirOwn() {
		Set<String> everything = Set.of("echo", "secret_admin", "secret_audit", "whoami");
		Set<String> readOnly = Set.of("echo", "secret_audit");
		String admin = token("erin", "mcp", Map.of("groups", List.of("admins")));
		String developer = token("erin", "mcp", Map.of("groups", List.of("dev")));
		String allTools = token("erin", "mcp tools:all", Map.of("groups", List.of("dev")));
		String plain = token("erin", "mcp", Map.of());
		for (int round = 0; round < 2; round++) {
			check(admin, everything);
			check(developer, readOnly);
			check(allTools, everything);
			check(plain, readOnly);
		}
	}

	private void check(String token, Set<String> expected) {
		RawHttp http = new RawHttp(port, "Authorization", "Bearer " + token);
		McpSession session = McpSession.open(http, "github");
		Set<String> listed = new TreeSet<>();
		RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"))
			.forEach(message -> message.at("/result/tools").forEach(tool -> listed.add(tool.path("name").asText())));
		listed.retainAll(Set.of("echo", "secret_admin", "secret_audit", "whoami"));
		assertThat(listed).isEqualTo(expected);
		for (String tool : List.of("echo", "secret_admin", "secret_audit", "whoami")) {
			JsonNode answer = RawHttp.messagesOf(session.post(RawHttp.toolsCall(2, tool))).get(0);
			assertThat(answer.has("result")).as("%s: %s", tool, answer).isEqualTo(expected.contains(tool));
		}
	}

	private static String token(String subject, String scope, Map<String, Object> claims) {
		return AUTH.token(AUDIENCE, subject, scope, claims);
	}

}
