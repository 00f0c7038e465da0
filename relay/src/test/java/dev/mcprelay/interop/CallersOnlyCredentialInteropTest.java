package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.bridge.ServerVersions;
import dev.mcprelay.testsupport.NginxHeaderRouter;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * Review 46j, N2 and N3: a server whose only credential is the caller's (here a {@code from-request-header} copy of
 * {@code X-Upstream-Auth}; real nginx in front of the MCP Java SDK's server, a session-era one, refuses 401 any
 * request without it) cannot be asked anything by the relay's own requests, which carry only the server's configured
 * credentials. The relay says so at start-up (the server is not pinned and its credentials are only the caller's) and
 * once when the server refuses an own request with 401 (pin {@code protocol-versions}); and however many 2026 requests
 * the server refuses, the relay asks its own {@code server/discover} at most once per
 * {@link ServerVersions#PROBE_INTERVAL} (it asked one per refused request, without bound).
 */
@ExtendWith(OutputCaptureExtension.class)
class CallersOnlyCredentialInteropTest {

	private static final String SECRET = "caller-credential-46k-SECRET";

	private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
			+ "{\"name\":\"copied\",\"version\":\"1\"}}";

	private AutoCloseable server;

	private NginxHeaderRouter guard;

	private ConfigurableApplicationContext relay;

	@BeforeEach
	void start() throws Exception {
		int port = TestUpstreams.freePort();
		server = SdkMcpUpstream.onPort(port);
		guard = NginxHeaderRouter.guarding("X-Upstream-Auth", SECRET, port, List.of("Mcp-Method"));
		relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.properties("server.port=0", "server.address=127.0.0.1",
					"mcp-relay.servers.copied.url=http://127.0.0.1:" + guard.port() + "/mcp",
					"mcp-relay.servers.copied.headers[0].name=X-Upstream-Auth",
					"mcp-relay.servers.copied.headers[0].from-request-header=X-Upstream-Auth")
			.run();
	}

	@AfterEach
	void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (guard != null) {
			guard.close();
		}
		if (server != null) {
			server.close();
		}
	}

	/**
	 * N3: 40 concurrent 2026 requests, then 20 one after another, each refused by the session-era server: the relay's
	 * own {@code server/discover} (refused 401 without the caller's credential, so nothing is learnt) is asked at most
	 * once per interval, not once per refused request.
	 */
	@Test
	void theRelayAsksItsOwnDiscoverAtMostOncePerIntervalHoweverManyRequestsAreRefused() throws Exception {
		RawHttp http = caller();
		long began = System.nanoTime();
		ExecutorService clients = Executors.newFixedThreadPool(40);
		try {
			List<Future<HttpResponse<String>>> answers = new ArrayList<>();
			for (int i = 0; i < 40; i++) {
				int id = i;
				answers.add(clients.submit(() -> http.send(modernCall(http, id))));
			}
			for (Future<HttpResponse<String>> answer : answers) {
				assertThat(answer.get().statusCode()).as("the session-era server's refusal, handed on: %s",
						answer.get().body()).isEqualTo(400);
			}
		}
		finally {
			clients.shutdownNow();
		}
		for (int i = 40; i < 60; i++) {
			assertThat(http.send(modernCall(http, i)).statusCode()).isEqualTo(400);
		}
		long intervals = (System.nanoTime() - began) / ServerVersions.PROBE_INTERVAL.toNanos();

		List<String> ownDiscovers = guard.accessLog().stream()
			.filter(line -> line.startsWith("POST 401") && line.contains("Mcp-Method=\"server/discover\""))
			.toList();
		assertThat(ownDiscovers).as("the relay's own server/discover, refused without the caller's credential: %s",
				guard.accessLog()).isNotEmpty();
		assertThat(ownDiscovers.size()).as("at most one per interval (%s of them passed) for 60 refused requests",
				intervals).isLessThanOrEqualTo(1 + (int) intervals);
	}

	/**
	 * N2: the relay says at start-up that it cannot learn the versions of an unpinned server whose credentials are only
	 * the caller's, and once (not once per request) when the server refuses its own request with 401; the caller's
	 * credential is in no log line.
	 */
	@Test
	void theRelaySaysOnceThatItCannotLearnTheServersVersions(CapturedOutput output) throws Exception {
		assertThat(warnings(output, "is given only the caller's credentials")).as("at start-up").hasSize(1)
			.allSatisfy(line -> assertThat(line).contains("'copied'").contains("pin protocol-versions"));
		RawHttp http = caller();
		for (int i = 0; i < 3; i++) {
			assertThat(http.send(modernCall(http, i)).statusCode()).isEqualTo(400);
			Thread.sleep(ServerVersions.PROBE_INTERVAL.toMillis() / 2);
		}
		assertThat(guard.accessLog().stream().filter(line -> line.startsWith("POST 401")).count())
			.as("the relay's own requests were refused more than once: %s", guard.accessLog()).isGreaterThan(1);
		List<String> refusals = warnings(output, "refused the relay's own request");
		assertThat(refusals).as("once for the server").hasSize(1);
		assertThat(refusals.get(0)).contains("HTTP 401")
			.contains("cannot learn the versions of 'copied' with the relay's own credentials: pin protocol-versions");
		assertThat(output.getAll()).as("the caller's credential is never logged").doesNotContain(SECRET);
	}

	private RawHttp caller() {
		return new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort(), "X-Upstream-Auth", SECRET);
	}

	/** The WARN lines of the relay's log that hold {@code text}. */
	private static List<String> warnings(CapturedOutput output, String text) {
		return output.getAll().lines().filter(line -> line.contains(" WARN ") && line.contains(text)).toList();
	}

	private static java.net.http.HttpRequest.Builder modernCall(RawHttp http, int id) {
		return http.post("copied", "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{"
				+ "\"name\":\"echo\",\"arguments\":{\"message\":\"m\"}," + META + "}}")
			.header("MCP-Protocol-Version", "2026-07-28")
			.header("Mcp-Method", "tools/call")
			.header("Mcp-Name", "echo");
	}

}
