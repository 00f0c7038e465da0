package dev.mcprelay.scale;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.NginxLoadBalancer;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RelayJarProcess;
import dev.mcprelay.testsupport.SharedRedis;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * Several relays need no affinity: three relays (the jar as it ships, each a process of its own over one Redis
 * deployment, {@code sessions.store: redis}) behind nginx balancing round robin, and a client whose every request of a
 * session lands on another relay than the one before (each answer names its relay, {@link NginxLoadBalancer#SERVED_BY})
 * gets the same answers as from one relay alone: MCP 2025-11-25 sessions on a pass-through server, a tool-search
 * server and a virtual server (initialize, lists, a search, calls, DELETE, then 404), and MCP 2026-07-28 requests
 * without a session. One subclass per Redis topology starts it; in the longer tier ({@code -Pscale}).
 */
@Tag("scale")
abstract class RelaysBehindALoadBalancerContract {

	static final String VERSION = "2025-11-25";

	static final String NEXT_VERSION = "2026-07-28";

	static SharedRedis redis;

	static final List<RelayJarProcess> RELAYS = new ArrayList<>();

	static NginxLoadBalancer balancer;

	/** Starts three relays over {@code shared}, then nginx before them, once each is ready. */
	static void startOver(SharedRedis shared, String name) throws Exception {
		redis = shared;
		String mcp = TestUpstreams.SDK.url("/mcp");
		String stateless = TestUpstreams.SDK.url("/stateless");
		List<String> arguments = new ArrayList<>(List.of("--mcp-relay.security.mode=none",
				"--mcp-relay.sessions.store=redis", "--mcp-relay.servers.passing.url=" + mcp,
				"--mcp-relay.servers.searching.url=" + mcp, "--mcp-relay.servers.searching.tool-search.enabled=true",
				"--mcp-relay.servers.alpha.url=" + mcp, "--mcp-relay.servers.beta.url=" + stateless,
				"--mcp-relay.virtual-servers.all.members=alpha,beta"));
		arguments.addAll(shared.relayArguments());
		for (int i = 1; i <= 3; i++) {
			RELAYS.add(RelayJarProcess.start("lb-" + name + "-relay-" + i, arguments));
		}
		for (RelayJarProcess relay : RELAYS) {
			relay.awaitReady();
		}
		balancer = NginxLoadBalancer.start(RELAYS.stream().map(RelayJarProcess::port).toList());
	}

	@AfterAll
	static void stopAll() throws Exception {
		if (balancer != null) {
			balancer.close();
		}
		for (RelayJarProcess relay : RELAYS) {
			relay.close();
		}
		RELAYS.clear();
		if (redis != null) {
			redis.close();
		}
	}

	@Test
	void everyRequestOfASessionOnAnotherRelayGetsTheAnswersOfOneRelay() throws Exception {
		for (String server : List.of("passing", "searching", "all")) {
			Transcript alone = Transcript.session(RELAYS.get(0).port(), server);
			Transcript balanced = Transcript.session(balancer.port(), server);

			assertThat(balanced.lines()).as("%s through the load balancer, as through one relay", server)
				.isEqualTo(alone.lines());
			assertThat(alone.lines()).as("the session ran: " + alone.lines())
				.anyMatch(line -> line.contains("\"echoed\"") || line.contains("echoed"));
			assertThat(balanced.servedBy()).as("%s: every answer names its relay", server)
				.doesNotContain("direct")
				.hasSize(balanced.lines().size());
			for (int i = 1; i < balanced.servedBy().size(); i++) {
				assertThat(balanced.servedBy().get(i)).as("%s: request %d on another relay than the one before, %s",
						server, i, balanced.servedBy()).isNotEqualTo(balanced.servedBy().get(i - 1));
			}
			assertThat(balanced.servedBy()).as("all three relays served the session")
				.containsAll(RELAYS.stream().map(relay -> "127.0.0.1:" + relay.port()).toList());
		}
		assertThat(balancer.accessLog()).as("nginx's log names a relay for every request")
			.allMatch(line -> line.matches(".* upstream=127\\.0\\.0\\.1:\\d+$"));
	}

	@Test
	void requestsWithoutASessionGetTheAnswersOfOneRelay() throws Exception {
		for (String server : List.of("all", "beta")) {
			Transcript alone = Transcript.sessionless(RELAYS.get(0).port(), server);
			Transcript balanced = Transcript.sessionless(balancer.port(), server);

			assertThat(balanced.lines()).as("%s (MCP %s) through the load balancer, as through one relay", server,
					NEXT_VERSION).isEqualTo(alone.lines());
			assertThat(alone.lines()).as("answered with results: " + alone.lines())
				.allMatch(line -> line.contains("\"result\""));
			assertThat(balanced.servedBy().stream().distinct()).as("served by all three relays, %s", balanced.servedBy())
				.hasSize(3);
		}
	}

	/** What a client got for each request of a scenario, as text, and which relay answered each. */
	record Transcript(List<String> lines, List<String> servedBy) {

		/** An MCP 2025-11-25 session on {@code server} through {@code port}. */
		static Transcript session(int port, String server) {
			Transcript transcript = new Transcript(new ArrayList<>(), new ArrayList<>());
			RawHttp http = new RawHttp(port);
			HttpResponse<String> initialized = transcript.add(http.post(server, "{\"jsonrpc\":\"2.0\",\"id\":1,"
					+ "\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" + VERSION + "\",\"capabilities\":{},"
					+ "\"clientInfo\":{\"name\":\"lb-test\",\"version\":\"1\"}}}"), http);
			String session = initialized.headers().firstValue("Mcp-Session-Id").orElse(null);
			transcript.add(in(http.post(server, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"),
					session), http);
			transcript.add(in(http.post(server, list(2)), session), http);
			if (server.equals("searching")) {
				transcript.add(in(http.post(server, call(3, "search_available_tools", "{\"query\":\"echo\"}")), session),
						http);
				transcript.add(in(http.post(server, list(4)), session), http);
			}
			for (String tool : server.equals("all") ? List.of("alpha_echo", "beta_echo") : List.of("echo")) {
				transcript.add(in(http.post(server, call(5, tool, "{\"message\":\"echoed\"}")), session), http);
			}
			transcript.add(in(http.post(server, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}"), session), http);
			transcript.add(in(http.request(server).DELETE(), session), http);
			transcript.add(in(http.post(server, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}"), session), http);
			return transcript;
		}

		/** MCP 2026-07-28 requests, without a session, to {@code server} through {@code port}. */
		static Transcript sessionless(int port, String server) {
			Transcript transcript = new Transcript(new ArrayList<>(), new ArrayList<>());
			RawHttp http = new RawHttp(port);
			String meta = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"" + NEXT_VERSION
					+ "\",\"io.modelcontextprotocol/clientCapabilities\":{}}";
			String tool = server.equals("all") ? "beta_echo" : "echo";
			for (int id = 1; id <= 3; id++) {
				transcript.add(http.post(server, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\","
						+ "\"params\":{" + meta + "}}")
					.header("MCP-Protocol-Version", NEXT_VERSION)
					.header("Mcp-Method", "tools/list"), http);
				transcript.add(http.post(server, "{\"jsonrpc\":\"2.0\",\"id\":" + (10 + id) + ",\"method\":\"tools/call\","
						+ "\"params\":{\"name\":\"" + tool + "\",\"arguments\":{\"message\":\"echoed\"}," + meta + "}}")
					.header("MCP-Protocol-Version", NEXT_VERSION)
					.header("Mcp-Method", "tools/call")
					.header("Mcp-Name", tool), http);
			}
			return transcript;
		}

		private HttpResponse<String> add(HttpRequest.Builder request, RawHttp http) {
			HttpResponse<String> response = http.send(request);
			servedBy.add(response.headers().firstValue(NginxLoadBalancer.SERVED_BY).orElse("direct"));
			List<String> messages = new ArrayList<>();
			if (!response.body().isBlank()) {
				RawHttp.messagesOf(response).stream().map(Transcript::withoutVolatile).forEach(messages::add);
			}
			lines.add(response.statusCode() + " " + messages);
			return response;
		}

		/**
		 * A message as text; a body that is no JSON-RPC message (the SDK server's 404 after DELETE is its exception,
		 * with its own session id) is passed on untouched by the relay, and recorded as that alone.
		 */
		private static String withoutVolatile(JsonNode message) {
			return message.has("jsonrpc") ? message.toString() : "(the upstream's own body)";
		}

		private static HttpRequest.Builder in(HttpRequest.Builder request, String session) {
			request.header("MCP-Protocol-Version", VERSION);
			return session == null ? request : request.header("Mcp-Session-Id", session);
		}

	}

	static String list(int id) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\"}";
	}

	static String call(int id, String tool, String arguments) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
				+ "\",\"arguments\":" + arguments + "}}";
	}

}
