package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.interop.NodePeers;
import dev.mcprelay.security.RelayMac;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.transport.StreamableHttpTransport;

/**
 * Review 46b, HIGH 2: a server of both generations (the TypeScript SDK v2 on {@code createMcpHandler}'s default,
 * {@code interop/dual-era-server.mjs}: 2026-07-28, and session-era clients served statelessly) refuses one 2026
 * client's request with its own JSON-RPC answer (-32021: the client declared no elicitation, which the tool needs). The
 * relay hands that answer on and opens no session to probe the server: it used to, the server answered its
 * {@code initialize}, and every 2026 client of the server was bridged to session-era MCP from then on.
 */
class DualEraServerProbeTest {

	private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
			+ "{\"name\":\"NAME\",\"version\":\"1\"}}";

	private static NodePeers.NodeServer dual;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		// classes first used on an event loop are loaded here, where BlockHound allows reading their jars
		org.springframework.core.io.buffer.DataBufferUtils.release(
				org.springframework.core.io.buffer.DefaultDataBufferFactory.sharedInstance.allocateBuffer(1));
		dev.mcprelay.session.SessionIds.mint();
		dual = NodePeers.startServer("dual-era-server.mjs");
	}

	@AfterAll
	static void stop() throws InterruptedException {
		if (dual != null) {
			dual.close();
		}
	}

	@Test
	void aDualEraServersOwnAnswerToOneClientIsHandedOnAndLeavesEveryClientUnbridged() throws Exception {
		ServerVersions versions = new ServerVersions("d", List.of());
		VersionBridge bridge = new VersionBridge(new StreamableHttpTransport(reactor.netty.http.client.HttpClient
			.create()), "d", versions, 1024 * 1024, new BridgedStreamsTest.Kept(),
				BridgedStreamsTest.flightsOf(null), Duration.ofSeconds(30),
				new RelayMac((String) null), Duration.ofSeconds(30));
		String url = dual.url();
		int before = initializes();

		String refused = SharedUpstreamSessionsTest.send(bridge, url, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"ask\",\"arguments\":{}," + META.replace("NAME", "no-elicit")
				+ "}}").get(60, TimeUnit.SECONDS);
		assertThat(refused).as("the server's own answer, handed on").startsWith("400 ").contains("-32021")
			.contains("\"id\":3");
		assertThat(versions.known()).as("nothing learnt from it").isEmpty();
		assertThat(initializes() - before).as("no session opened to probe the server").isZero();

		JsonNode echoed = SharedUpstreamSessionsTest.lastMessage(SharedUpstreamSessionsTest.send(bridge, url,
				"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":"
						+ "{\"text\":\"hi\"}," + META.replace("NAME", "good") + "}}")
			.get(60, TimeUnit.SECONDS));
		assertThat(echoed.at("/result/content/0/text").asText()).as("%s", echoed).isEqualTo("hi");
		assertThat(echoed.at("/result/resultType").asText()).as("the server's own 2026 answer, unbridged: %s", echoed)
			.isEqualTo("complete");
		assertThat(versions.known()).isEmpty();
		assertThat(initializes() - before).as("another client's request is not bridged either").isZero();
	}

	/**
	 * Review 46c, finding 1: what the client shaped proves nothing of the server's generation. A 2026 request sent as
	 * {@code text/plain} makes the server refuse it (415, id null) as a session-era server would refuse any 2026
	 * request; the relay asks its own {@code server/discover}, which the server answers: it speaks 2026-07-28, no
	 * session is opened to probe it, and no 2026 client is bridged.
	 */
	@Test
	void aRefusalOfTheClientsMediaTypeLeavesADualEraServerUnbridged() throws Exception {
		ServerVersions versions = new ServerVersions("d", List.of());
		VersionBridge bridge = bridge(versions);
		int before = initializes();

		String refused = SharedUpstreamSessionsTest.send(bridge, dual.url(), "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":"
				+ "\"tools/list\",\"params\":{" + META.replace("NAME", "plain") + "}}",
				headers -> headers.set("Content-Type", "text/plain")).get(60, TimeUnit.SECONDS);

		assertThat(refused).as("the server's refusal, handed on").startsWith("415 ");
		assertThat(initializes() - before).as("no session opened to probe the server").isZero();
		assertThat(versions.bridges("2026-07-28")).as("2026 clients not bridged: %s", versions.known()).isFalse();
		// review 46e, N2: a request the client shaped wrong is no reason to probe the server at all
		assertThat(versions.known()).as("nothing learnt: no probe for a text/plain request").isEmpty();
		assertThat(versions.bridges("2025-11-25")).as("2025 clients not bridged").isFalse();
	}

	/**
	 * Review 46e, N2: the relay's own {@code server/discover}, answered by a server of both generations, names only
	 * its 2026 versions (the TypeScript SDK's discover does): it proves the server speaks 2026-07-28, and nothing of
	 * the session era, so 2025 clients are still relayed to the server (which serves them) and not bridged; session-era
	 * versions known before stay.
	 */
	@Test
	void theRelaysOwnProbeOfADualEraServerNarrowsNothing() throws Exception {
		ServerVersions versions = new ServerVersions("d", List.of());
		ModernProbe probe = new ModernProbe(new StreamableHttpTransport(reactor.netty.http.client.HttpClient.create()),
				"d", 1024 * 1024);
		org.springframework.http.HttpHeaders headers = new org.springframework.http.HttpHeaders();
		headers.set("MCP-Protocol-Version", "2026-07-28");
		dev.mcprelay.transport.UpstreamRequest request = new dev.mcprelay.transport.UpstreamRequest("d",
				org.springframework.http.HttpMethod.POST, URI.create(dual.url()), headers, new byte[0], "alice", null);

		assertThat(probe.ask(request, versions, System.nanoTime()).toFuture().get(60, TimeUnit.SECONDS))
			.isEqualTo(ModernProbe.Verdict.SPEAKS_2026);
		assertThat(versions.known()).as("what the probe proved").contains("2026-07-28");
		assertThat(versions.bridges("2025-11-25")).as("2025 clients still relayed: %s", versions.known()).isFalse();
		assertThat(versions.bridges("2026-07-28")).isFalse();

		String initialize = SharedUpstreamSessionsTest.send(bridge(versions), dual.url(), "{\"jsonrpc\":\"2.0\","
				+ "\"id\":8,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
				+ "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}", sent -> {
					sent.remove("MCP-Protocol-Version");
					sent.remove("Mcp-Method");
				}).get(60, TimeUnit.SECONDS);
		assertThat(SharedUpstreamSessionsTest.lastMessage(initialize).at("/result/protocolVersion").asText())
			.as("the server's own answer: %s", initialize).isEqualTo("2025-11-25");
		assertThat(versions.bridges("2025-11-25")).as("still relayed after: %s", versions.known()).isFalse();

		// another server's probe (a probe's verdict is shared for PROBE_INTERVAL by every use of its server)
		ServerVersions sessionEra = new ServerVersions("d", List.of());
		sessionEra.learn(List.of("2025-11-25"));
		new ModernProbe(new StreamableHttpTransport(reactor.netty.http.client.HttpClient.create()), "d", 1024 * 1024)
			.ask(request, sessionEra, System.nanoTime()).toFuture().get(60, TimeUnit.SECONDS);
		assertThat(sessionEra.known()).as("what was known stays").contains("2025-11-25", "2026-07-28");
	}

	/**
	 * Review 46c, finding 1: a refusal of a version the relay does not know (a client's own invention) names the
	 * versions of the path that refused it only; it is handed on and teaches nothing, so no other client is bridged.
	 */
	@Test
	void aRefusalOfAVersionTheRelayDoesNotKnowTeachesNothing() throws Exception {
		ServerVersions versions = new ServerVersions("d", List.of());
		VersionBridge bridge = bridge(versions);

		String perRequest = SharedUpstreamSessionsTest.send(bridge, dual.url(), "{\"jsonrpc\":\"2.0\",\"id\":6,"
				+ "\"method\":\"tools/list\",\"params\":{" + META.replace("NAME", "future")
					.replace("2026-07-28", "2099-01-01") + "}}",
				headers -> headers.set("MCP-Protocol-Version", "2099-01-01")).get(60, TimeUnit.SECONDS);
		assertThat(perRequest).as("the server's refusal, handed on").startsWith("400 ");
		assertThat(versions.known()).as("nothing learnt from a 2026 request naming 2099-01-01").isEmpty();

		String initialize = SharedUpstreamSessionsTest.send(bridge, dual.url(), "{\"jsonrpc\":\"2.0\",\"id\":7,"
				+ "\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
				+ "\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"},\"_meta\":{"
				+ "\"io.modelcontextprotocol/protocolVersion\":\"2099-01-01\"}}}", headers -> {
					headers.remove("MCP-Protocol-Version");
					headers.remove("Mcp-Method");
				}).get(60, TimeUnit.SECONDS);
		assertThat(initialize).as("answered as the server answers it").isNotEmpty();
		assertThat(versions.known()).as("nothing learnt from an initialize naming 2099-01-01: %s", initialize)
			.isEmpty();
	}

	/**
	 * Review 46f, F1 (its second reproduction): against the server's stateless 2025 side, one request with a made-up
	 * session id, {@code MCP-Protocol-Version: 2025-11-25} and a 2026 envelope claiming 2025-11-25 in {@code _meta} is
	 * refused 400 -32022 naming [2026-07-28]. The relay's own {@code initialize} is answered: the refusal is handed on,
	 * nothing is learnt, and the next 2025 client's {@code initialize} is relayed (the server's own answer, no session
	 * of the bridge's); it used to be bridged.
	 */
	@Test
	void aCraftedRequestInAMadeUpSessionLeavesTheNext2025ClientRelayed() throws Exception {
		ServerVersions versions = new ServerVersions("d", List.of());
		VersionBridge bridge = bridge(versions);
		RetiredSessionEraTest.Answer crafted = RetiredSessionEraTest.send(bridge, dual.url(), "made-up-session-id",
				"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":{" + META.replace("NAME",
						"crafted").replace("2026-07-28", "2025-11-25") + "}}");
		assertThat(crafted.failure()).as("handed on, no session ended").isNull();
		assertThat(crafted.status()).as("%s", crafted).isEqualTo(400);
		assertThat(crafted.body()).contains("-32022");
		assertThat(versions.bridges("2025-11-25")).as("nothing learnt: %s", versions.known()).isFalse();

		RetiredSessionEraTest.Answer next = RetiredSessionEraTest.send(bridge, dual.url(), null, "{\"jsonrpc\":\"2.0\","
				+ "\"id\":10,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\""
				+ ":{},\"clientInfo\":{\"name\":\"next\",\"version\":\"1\"}}}");
		assertThat(next.sessionId()).as("relayed, not given a session of the bridge's: %s", next).isNull();
		assertThat(SharedUpstreamSessionsTest.lastMessage("200 " + next.body()).at("/result/protocolVersion").asText())
			.as("%s", next).isEqualTo("2025-11-25");
	}

	private static VersionBridge bridge(ServerVersions versions) {
		return new VersionBridge(new StreamableHttpTransport(reactor.netty.http.client.HttpClient.create()), "d",
				versions, 1024 * 1024, new BridgedStreamsTest.Kept(), BridgedStreamsTest.flightsOf(null),
				Duration.ofSeconds(30), new RelayMac((String) null), Duration.ofSeconds(30));
	}

	private static int initializes() throws Exception {
		HttpResponse<String> counted = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
				URI.create("http://127.0.0.1:" + dual.port() + "/initializes")).build(),
				HttpResponse.BodyHandlers.ofString());
		return RawHttp.json(counted.body()).path("initializes").asInt();
	}

}
