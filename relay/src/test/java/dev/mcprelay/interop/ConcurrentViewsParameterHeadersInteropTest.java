package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.policy.ServerListings;
import dev.mcprelay.testsupport.RawHttp;

/**
 * Cold review 43l, L-3: where the relay writes the {@code Mcp-Param-*} header of an argument it injects, the tool's
 * declarations come from a listing of the caller's view, and a caller's listings of a server past
 * {@value ServerListings#MAX_PER_CALLER} were refused at once ({@link ServerListings}): six concurrent first calls of
 * one caller, each in a fresh view ({@code X-Tenant}, which the server is configured to get), went upstream four of six
 * with the injected {@code region} and without its {@code Mcp-Param-Region}, and the real 2026-07-28 server (the
 * TypeScript SDK v2 fixture of the conformance suite, {@code interop/conformance-server.mjs}, ERA 2026) refused them
 * (-32020, "the Mcp-Param-Region header is absent"). The caller's listings past its share now wait for a turn of its
 * own, within the call's wait: every one of the six is listed, carries its header and runs. (The refusal of a caller
 * whose waiting listings are full: {@code PublishedCataloguesTest}.)
 */
class ConcurrentViewsParameterHeadersInteropTest {

	private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"},"
			+ "\"io.modelcontextprotocol/clientCapabilities\":{}}";

	private static final String TOOL = "test_x_mcp_header";

	private static final int CALLS = 6;

	private static NodePeers.NodeServer server;

	private static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		server = NodePeers.startServer("conformance-server.mjs", Map.of("ERA", "2026"));
		relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.properties("server.port=0", "server.address=127.0.0.1", "mcp-relay.servers.tenants.url=" + server.url(),
					"mcp-relay.servers.tenants.protocol-versions=2026-07-28",
					"mcp-relay.servers.tenants.headers[0].name=X-Tenant",
					"mcp-relay.servers.tenants.headers[0].from-request-header=X-Tenant",
					"mcp-relay.servers.tenants.arguments.inject[0].name=region",
					"mcp-relay.servers.tenants.arguments.inject[0].from-request-header=X-Region")
			.run();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (server != null) {
			server.close();
		}
	}

	@Test
	void sixConcurrentFirstCallsOfOneCallerInFreshViewsAllCarryTheInjectedArgumentsHeader() throws Exception {
		// the relay and the server warmed by calls of other views (their answers not asserted: a cold start's first
		// listing can take longer than the tenth a call waits, review 43l L-5), so that what is measured is the
		// listings' turns
		send(0, "warm-up-0", "eu-warm");
		send(1, "warm-up-1", "eu-warm");
		for (int round = 0; round < 3; round++) {
			List<HttpResponse<String>> answers = concurrently(round);
			for (int call = 0; call < CALLS; call++) {
				HttpResponse<String> answer = answers.get(call);
				String region = "eu-" + round + "-" + call;
				assertThat(answer.statusCode()).as("round %d, call %d: %s", round, call, answer.body()).isEqualTo(200);
				JsonNode message = RawHttp.messagesOf(answer).get(0);
				assertThat(message.has("result")).as("round %d, call %d ran: %s", round, call, answer.body()).isTrue();
				assertThat(message.at("/result/content/0/text").asText())
					.as("the server got the injected region with its header: %s", answer.body())
					.contains("\"region\":\"" + region + "\"");
			}
		}
	}

	/** {@value #CALLS} calls of the one (anonymous) caller, each in a view of its own, sent at once. */
	private static List<HttpResponse<String>> concurrently(int round) throws Exception {
		ExecutorService clients = Executors.newFixedThreadPool(CALLS);
		try {
			CountDownLatch ready = new CountDownLatch(CALLS);
			List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
			for (int call = 0; call < CALLS; call++) {
				int id = call;
				calls.add(CompletableFuture.supplyAsync(() -> {
					ready.countDown();
					try {
						ready.await();
					}
					catch (InterruptedException interrupted) {
						Thread.currentThread().interrupt();
					}
					return send(id, "tenant-" + round + "-" + id, "eu-" + round + "-" + id);
				}, clients));
			}
			List<HttpResponse<String>> answers = new ArrayList<>();
			for (CompletableFuture<HttpResponse<String>> call : calls) {
				answers.add(call.get(120, TimeUnit.SECONDS));
			}
			return answers;
		}
		finally {
			clients.shutdownNow();
		}
	}

	private static HttpResponse<String> send(int id, String tenant, String region) {
		RawHttp http = new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
		String body = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + TOOL
				+ "\",\"arguments\":{\"level\":1}," + META + "}}";
		return http.send(http.post("tenants", body)
			.header("MCP-Protocol-Version", "2026-07-28")
			.header("Mcp-Method", "tools/call")
			.header("Mcp-Name", TOOL)
			.header("X-Tenant", tenant)
			.header("X-Region", region));
	}

}
