package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.bridge.ServerVersions;
import dev.mcprelay.bridge.VersionBridge;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.NginxHeaderRouter;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * Review 46i, F1: a server behind a gateway (real nginx) that routes by the client's {@code X-Tenant} to the
 * TypeScript SDK v2 server that speaks only 2026-07-28 ({@code interop/only-2026-server.mjs}) or to the MCP Java SDK's
 * server, which speaks only session-era MCP ({@link SdkMcpUpstream}). The relay's own requests to learn the server's
 * versions carried the triggering client's headers, and a 2025 client's refused {@code initialize} was learnt from:
 * one caller chose which backend taught the relay the versions of server {@code m} for every caller, and four rounds
 * spent the bound of revisions, so that for ten minutes no other caller's 2025 session opened. Now the relay's own
 * {@code initialize} and {@code server/discover} carry only the server's configured headers (nginx's log shows what
 * each backend received), and only their answers teach.
 */
class HeaderRoutedServerInteropTest {

	private static final String META = meta("routed");

	private final List<AutoCloseable> started = new java.util.ArrayList<>();

	private int modernPort;

	private int sessionEraPort;

	private NginxHeaderRouter router;

	private ConfigurableApplicationContext relay;

	@BeforeEach
	void startServers() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		modernPort = TestUpstreams.freePort();
		started.add(NodePeers.startServer("only-2026-server.mjs", modernPort, Map.of()));
		sessionEraPort = TestUpstreams.freePort();
		started.add(SdkMcpUpstream.onPort(sessionEraPort));
	}

	@AfterEach
	void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (router != null) {
			router.close();
		}
		for (AutoCloseable server : started) {
			server.close();
		}
	}

	/**
	 * The 46i scenario (scen_tenant3.py): alice's 2025 {@code initialize} with {@code X-Tenant: next} reaches the
	 * 2026-only backend, which refuses it naming [2026-07-28]; the relay's own {@code initialize} goes where the
	 * gateway sends a request of nobody's (the default tenant's session-era server), which answers it: nothing is
	 * learnt, alice gets her backend's refusal, and carol, of the default tenant, opens sessions throughout and after
	 * four rounds (one more than the bound of revisions allows in ten minutes), as does dave, a 2026 client.
	 */
	@Test
	void aClientsRoutingHeaderNeitherSteersTheRelaysInitializeNorWhatOtherCallersGet() throws Exception {
		startRelay(Map.of("next", modernPort), sessionEraPort);
		RawHttp alice = new RawHttp(relayPort(), "X-Tenant", "next", "X-Client-Chosen", "alice");
		RawHttp carol = new RawHttp(relayPort());
		for (int round = 1; round <= 4; round++) {
			HttpResponse<String> refused = alice.send(alice.post("m", McpSession.initialize(round)));
			assertThat(refused.headers().firstValue("Mcp-Session-Id").orElse(""))
				.as("round %s: alice's initialize is not bridged: %s %s", round, refused.statusCode(), refused.body())
				.doesNotStartWith("mcp-bridge-");
			assertThat(versions().known()).as("round %s: nothing 2026-only learnt from alice's backend", round)
				.noneMatch(version -> version.startsWith("2026-"));
			McpSession session = McpSession.open(carol, "m");
			assertThat(session.id()).as("round %s: carol's own session at the Java SDK's server", round).isNotNull()
				.doesNotStartWith("mcp-bridge-");
			assertThat(echo(session, 100 + round, "carol " + round)).isEqualTo("carol " + round);
		}
		assertThat(modernEcho(carol, 200, "dave")).as("a 2026 client of the default tenant").isEqualTo("dave");

		List<String> probes = linesWith("\\\"version\\\":\\\"probe\\\"");
		assertThat(probes).as("the relay's own initialize was asked: %s", router.accessLog()).isNotEmpty();
		assertThat(probes).as("...routed as a request of nobody's, with the server's configured headers only")
			.allSatisfy(line -> assertThat(line).contains("upstream=127.0.0.1:" + sessionEraPort)
				.contains("X-Tenant=\"\"")
				.contains("X-Client-Chosen=\"\"")
				.contains("X-Copied=\"\"")
				.contains("X-Configured=\"relay-own\""));
	}

	/**
	 * Review 46j, N1: the same through a 2026-07-28 client. The default tenant's backend speaks only the session era, so
	 * dave, a 2026 client, is bridged (what the relay learnt came from its own {@code server/discover} and
	 * {@code initialize}). Then, four rounds (one more than the bound of revisions allows in ten minutes): eve, another
	 * 2026 client, sends with {@code X-Tenant: next}, so the {@code initialize} of her upstream session reaches the
	 * 2026-only backend, which refuses it naming [2026-07-28]; and dave sends one request with {@code X-Tenant: next} in
	 * the upstream session the relay keeps for him, which that backend refuses so too. Each only makes the relay ask
	 * its own {@code initialize} (routed to the default backend, which answers it): nothing is learnt, and carol's new
	 * 2025 sessions open and dave, without the header, is served in every round.
	 */
	@Test
	void aTwentySixClientsRoutingHeaderDoesNotTeachWhatOtherCallersGet() throws Exception {
		startRelay(Map.of("next", modernPort), sessionEraPort);
		RawHttp plain = new RawHttp(relayPort());
		RawHttp steered = new RawHttp(relayPort(), "X-Tenant", "next");
		McpSession bob = McpSession.open(plain, "m");
		assertThat(bob.id()).as("bob's session at the Java SDK's server").doesNotStartWith("mcp-bridge-");
		assertThat(modernEcho(plain, 1, "dave")).as("dave, bridged").isEqualTo("dave");
		assertThat(versions().known()).as("learnt from the relay's own requests").isNotEmpty()
			.allMatch(version -> !version.startsWith("2026-"));
		for (int round = 1; round <= 4; round++) {
			HttpResponse<String> eve = steered.send(modernCall(steered, 10 + round, "eve " + round, meta("eve")));
			assertThat(eve.statusCode()).as("round %s: eve's session cannot open at her backend: %s", round,
					eve.body()).isGreaterThanOrEqualTo(400);
			assertThat(versions().known()).as("round %s: nothing learnt from eve's session's initialize", round)
				.isNotEmpty().noneMatch(version -> version.startsWith("2026-"));
			HttpResponse<String> daveSteered = steered.send(modernCall(steered, 20 + round, "dave steered", META));
			assertThat(daveSteered.statusCode()).as("round %s: dave's steered request is refused at that backend: %s",
					round, daveSteered.body()).isGreaterThanOrEqualTo(400);
			assertThat(versions().known()).as("round %s: nothing learnt from dave's request in his session", round)
				.isNotEmpty().noneMatch(version -> version.startsWith("2026-"));
			McpSession carol = McpSession.open(plain, "m");
			assertThat(carol.id()).as("round %s: carol's new 2025 session at the Java SDK's server", round).isNotNull()
				.doesNotStartWith("mcp-bridge-");
			assertThat(echo(carol, 100 + round, "carol " + round)).isEqualTo("carol " + round);
			assertThat(modernEcho(plain, 200 + round, "dave " + round)).isEqualTo("dave " + round);
		}
		assertThat(echo(bob, 300, "bob")).isEqualTo("bob");
		List<String> initializes = linesWith("\\\"version\\\":\\\"probe\\\"");
		assertThat(initializes).as("the relay's own initialize, asked: %s", router.accessLog()).isNotEmpty()
			.allSatisfy(line -> assertThat(line).contains("upstream=127.0.0.1:" + sessionEraPort)
				.contains("X-Tenant=\"\""));
	}

	/**
	 * The relay's own {@code server/discover}: a 2026 client's request with {@code X-Tenant: old} reaches the
	 * session-era backend, which refuses it as such a server does; the relay's discover goes to the default tenant's
	 * 2026-only server, which answers it: the relay does not take the server for a session-era one (2026 clients are
	 * not bridged).
	 */
	@Test
	void aClientsRoutingHeaderDoesNotSteerTheRelaysDiscover() throws Exception {
		startRelay(Map.of("old", sessionEraPort), modernPort);
		RawHttp old = new RawHttp(relayPort(), "X-Tenant", "old", "X-Client-Chosen", "old-client");
		HttpResponse<String> answer = old.send(modernCall(old, 1, "to the old backend"));
		assertThat(answer.statusCode()).as("the old backend's refusal, handed on: %s", answer.body())
			.isGreaterThanOrEqualTo(400);

		List<String> discovers = linesWith("server/discover");
		assertThat(discovers).as("the relay's own server/discover was asked: %s", router.accessLog()).isNotEmpty();
		assertThat(discovers).allSatisfy(line -> assertThat(line).contains("upstream=127.0.0.1:" + modernPort)
			.contains("X-Tenant=\"\"")
			.contains("X-Client-Chosen=\"\"")
			.contains("X-Configured=\"relay-own\""));
		assertThat(versions().bridges("2026-07-28")).as("2026 clients are not bridged: %s", versions().known())
			.isFalse();
		assertThat(modernEcho(new RawHttp(relayPort()), 2, "default")).isEqualTo("default");
	}

	private void startRelay(Map<String, Integer> routes, int defaultPort) throws Exception {
		router = NginxHeaderRouter.start("X-Tenant", routes, defaultPort,
				List.of("X-Tenant", "X-Client-Chosen", "X-Copied", "X-Configured"));
		relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.properties("server.port=0", "server.address=127.0.0.1",
					"mcp-relay.servers.m.url=http://127.0.0.1:" + router.port() + "/mcp",
					"mcp-relay.servers.m.headers[0].name=X-Configured", "mcp-relay.servers.m.headers[0].value=relay-own",
					"mcp-relay.servers.m.headers[1].name=X-Copied",
					"mcp-relay.servers.m.headers[1].from-request-header=X-Client-Chosen")
			.run();
	}

	/** The gateway's log lines whose body holds {@code text} (as logged: JSON-escaped). */
	private List<String> linesWith(String text) throws Exception {
		return router.accessLog().stream().filter(line -> line.contains(text)).toList();
	}

	private ServerVersions versions() {
		dev.mcprelay.proxy.Upstream server = relay.getBean(dev.mcprelay.proxy.UpstreamRegistry.class).find("m");
		return ((VersionBridge) relay.getBean(dev.mcprelay.proxy.UpstreamTransports.class).of(server)).versions();
	}

	private static String echo(McpSession session, int id, String text) {
		HttpResponse<String> answer = session.post(call(id, text, ""));
		assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
		return RawHttp.messagesOf(answer).get(0).at("/result/content/0/text").asText();
	}

	private static java.net.http.HttpRequest.Builder modernCall(RawHttp http, int id, String text) {
		return modernCall(http, id, text, META);
	}

	/** A 2026-07-28 call of {@code echo} with {@code meta} (its client info: whose upstream session it goes in). */
	private static java.net.http.HttpRequest.Builder modernCall(RawHttp http, int id, String text, String meta) {
		return http.post("m", call(id, text, "," + meta))
			.header("MCP-Protocol-Version", "2026-07-28")
			.header("Mcp-Method", "tools/call")
			.header("Mcp-Name", "echo");
	}

	/** A 2026-07-28 client's call of {@code echo}; the text it answers. */
	private static String modernEcho(RawHttp http, int id, String text) {
		HttpResponse<String> answer = http.send(modernCall(http, id, text));
		assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
		JsonNode result = RawHttp.messagesOf(answer).get(0);
		return result.at("/result/content/0/text").asText(result.toString());
	}

	/** The 2026-07-28 envelope of a client named {@code name}. */
	private static String meta(String name) {
		return "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
				+ "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
				+ "{\"name\":\"" + name + "\",\"version\":\"1\"}}";
	}

	private static String call(int id, String text, String meta) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
				+ "\"arguments\":{\"text\":\"" + text + "\",\"message\":\"" + text + "\"}" + meta + "}}";
	}

	private int relayPort() {
		return ((WebServerApplicationContext) relay).getWebServer().getPort();
	}

}
