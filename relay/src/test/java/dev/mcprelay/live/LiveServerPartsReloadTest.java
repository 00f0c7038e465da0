package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.SpringAuthorizationServer;

/**
 * What the relay compiles per server follows a reload, seen from clients of a running relay in front of real MCP
 * servers and a real authorization server: a server's upstream tokens (a server moved to another upstream never sends
 * it the old one's token; an unchanged one keeps its cached token), its argument rules (a server added has the
 * reserved prefix, a server re-added under an old id none of the old server's injections), and the members of a
 * virtual server with {@code members: ["*"]} (a server removed leaves it, one added joins it).
 */
class LiveServerPartsReloadTest {

	static SdkMcpUpstream upstream;

	static SpringAuthorizationServer auth;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(LiveServerPartsReloadTest::base)
		.peer(() -> upstream = new SdkMcpUpstream())
		.peer(() -> auth = new SpringAuthorizationServer(Duration.ofMinutes(10)));

	@BeforeEach
	void nothingSeenYet() {
		upstream.clearSeen();
	}

	@Test
	void aServerMovedToAnotherUpstreamIsSentNoneOfTheOldUpstreamsTokensAndAnUnchangedOneKeepsItsOwn() throws Exception {
		McpSession.open(live.http(), "alpha");
		assertThat(authorizationsAt("/mcp")).as("alpha's upstream gets the relay's token").isNotEmpty()
			.allMatch(authorization -> authorization.startsWith("Bearer "));
		McpSession keeper = McpSession.open(live.http(), "keeper");
		int tokenRequests = auth.tokenRequests();

		live.reload(config(server("alpha", "/stateless"), oauth2Server("keeper"),
				server("beta", "/stateless", INJECTS_OLD_SECRET)), ReloadOutcome.APPLIED);
		upstream.clearSeen();

		McpSession moved = McpSession.open(live.http(), "alpha");
		assertThat(moved.post(RawHttp.toolsCall(2, "echo")).statusCode()).isEqualTo(200);
		assertThat(authorizationsAt("/stateless")).as("alpha moved to an upstream without oauth2: no token goes there")
			.isNotEmpty().containsOnly("none");
		assertThat(keeper.post(RawHttp.toolsCall(3, "echo")).statusCode()).isEqualTo(200);
		assertThat(authorizationsAt("/mcp")).as("the unchanged server still sends its token").isNotEmpty()
			.allMatch(authorization -> authorization.startsWith("Bearer "));
		assertThat(auth.tokenRequests()).as("and kept it across the reload").isEqualTo(tokenRequests);
	}

	@Test
	void aServerAReloadAddsRefusesReservedArguments() throws Exception {
		live.reload(base().replace(VIRTUAL, server("gamma", "/stateless") + VIRTUAL), ReloadOutcome.APPLIED);

		HttpResponse<String> reserved = McpSession.open(live.http(), "gamma")
			.post("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"_user\":\"mallory\"}}}");
		assertThat(RawHttp.messagesOf(reserved)).as("a server the reload added refuses reserved arguments")
			.singleElement().satisfies(answer -> assertThat(answer.at("/error/code").asInt()).isEqualTo(-32602));
		assertThat(toolCallBodies()).as("nothing reached the upstream").isEmpty();
	}

	@Test
	void aPreflightAllowsTheRequestHeadersOfAServerAReloadAdded() throws Exception {
		assertThat(allowedByPreflight("gamma", "x-gamma-tenant, x-gamma-locale")).as("before the reload").isEmpty();

		live.reload(base().replace(VIRTUAL, server("gamma", "/stateless",
				"      headers:\n        - { name: X-Tenant, from-request-header: X-Gamma-Tenant }\n",
				"      arguments:\n        inject:\n          - { name: _locale, from-request-header: X-Gamma-Locale }\n")
				+ VIRTUAL), ReloadOutcome.APPLIED);

		assertThat(allowedByPreflight("gamma", "x-gamma-tenant, x-gamma-locale"))
			.as("the headers the added server takes from the request").contains("x-gamma-tenant", "x-gamma-locale");
	}

	@Test
	void aServerRemovedThenAddedAgainUnderItsIdHasNoneOfTheOldServersInjections() throws Exception {
		live.reload(config(oauth2Server("alpha"), oauth2Server("keeper")), ReloadOutcome.APPLIED);
		live.reload(config(oauth2Server("alpha"), oauth2Server("keeper"),
				server("beta", "/stateless")), ReloadOutcome.APPLIED);

		assertThat(McpSession.open(live.http(), "beta").post(RawHttp.toolsCall(5, "echo")).statusCode()).isEqualTo(200);
		assertThat(toolCallBodies()).as("beta, removed then added again without injections").isNotEmpty()
			.noneMatch(body -> body.contains("old-secret") || body.contains("_secret"));
	}

	@Test
	void aVirtualServerOfEveryServerLosesARemovedOneAndGainsAnAddedOne() throws Exception {
		assertThat(virtualTools()).contains("alpha_echo", "beta_echo");

		live.reload(config(oauth2Server("alpha"), oauth2Server("keeper")), ReloadOutcome.APPLIED);
		assertThat(virtualTools()).as("a removed server is no member any more").contains("alpha_echo")
			.noneMatch(name -> name.startsWith("beta_"));

		live.reload(config(oauth2Server("alpha"), oauth2Server("keeper"),
				server("gamma", "/stateless")), ReloadOutcome.APPLIED);
		assertThat(virtualTools()).as("an added server joins *").contains("alpha_echo", "gamma_echo");
	}

	/** The request headers a browser's preflight for a POST to {@code server} asking for {@code headers} is allowed. */
	private static String allowedByPreflight(String server, String headers) {
		RawHttp http = live.http();
		HttpResponse<String> preflight = http.send(http.request(server)
			.header("Origin", "http://localhost:5173")
			.header("Access-Control-Request-Method", "POST")
			.header("Access-Control-Request-Headers", headers)
			.method("OPTIONS", java.net.http.HttpRequest.BodyPublishers.noBody()));
		assertThat(preflight.statusCode()).as(preflight.body()).isEqualTo(204);
		return preflight.headers().firstValue("Access-Control-Allow-Headers").orElse("").toLowerCase();
	}

	/** The tools a new session of the virtual server {@code all} lists. */
	private static List<String> virtualTools() {
		HttpResponse<String> listed = McpSession.open(live.http(), "all")
			.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
		assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
		List<String> names = new ArrayList<>();
		for (JsonNode message : RawHttp.messagesOf(listed)) {
			message.at("/result/tools").forEach(tool -> names.add(tool.path("name").asText()));
		}
		return names;
	}

	/** The Authorization header of each request the upstream received on {@code path} ({@code none} for none). */
	private static List<String> authorizationsAt(String path) {
		return upstream.seen().stream().filter(seen -> seen.path().equals(path)).map(seen -> {
			String authorization = seen.headers().getFirst("Authorization");
			return authorization == null ? "none" : authorization;
		}).toList();
	}

	private static List<String> toolCallBodies() {
		return upstream.seen().stream().map(SdkMcpUpstream.Seen::body).filter(body -> body.contains("tools/call"))
			.toList();
	}

	private static final String INJECTS_OLD_SECRET = "      arguments:\n        inject:\n"
			+ "          - { name: _secret, value: old-secret }\n";

	private static final String VIRTUAL = "  virtual-servers:\n    all:\n      members: [\"*\"]\n";

	/** alpha and keeper behind the authorization server, beta injecting a secret, and a virtual server of all. */
	static String base() {
		return config(oauth2Server("alpha"), oauth2Server("keeper"), server("beta", "/stateless", INJECTS_OLD_SECRET));
	}

	static String config(String... servers) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: none\n  servers:\n"
				+ String.join("", servers) + VIRTUAL;
	}

	static String server(String id, String path, String... settings) {
		return "    " + id + ":\n      url: " + upstream.url(path) + "\n" + String.join("", settings);
	}

	/** A server on the Streamable HTTP upstream, with the relay's client at the authorization server. */
	static String oauth2Server(String id) {
		return server(id, "/mcp", "      oauth2:\n        token-uri: " + auth.tokenUri() + "\n        client-id: "
				+ SpringAuthorizationServer.RELAY_CLIENT + "\n        client-secret: "
				+ SpringAuthorizationServer.RELAY_SECRET + "\n");
	}

}
