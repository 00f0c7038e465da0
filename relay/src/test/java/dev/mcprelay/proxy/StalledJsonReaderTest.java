package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.NonReadingClient;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A client that reads nothing of a large JSON answer is cut as one that reads nothing of a stream is
 * ({@code timeouts.client-write}, here 2 s): its connection closed, access log {@code reason=client_write_timeout}
 * (outcome {@code client_error}), the server's stall counted; for a direct server's answer and for a virtual server's
 * alike. Before, the JSON answer had no client clock: a client that never read held its 20 MB answer (its share of the
 * body budget, and the heap) for as long as it kept the connection. The answer is the Java SDK's stateless server
 * echoing a 4 MB message: more than the window ({@code max-held-bytes} 1 MB) and the sockets take.
 */
class StalledJsonReaderTest {

	private static final String MESSAGE = "m".repeat(4 * 1024 * 1024);

	private static SdkMcpUpstream upstream;

	private static ConfigurableApplicationContext relay;

	private static int port;

	@BeforeAll
	static void start() {
		upstream = new SdkMcpUpstream();
		relay = new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class)
			.properties("server.port=0", "mcp-relay.servers.plain.url=" + upstream.url("/stateless"),
					"mcp-relay.servers.plain.max-buffered-body=8MB", "mcp-relay.servers.plain.timeouts.client-write=2s",
					"mcp-relay.sessions.max-held-bytes=1MB", "mcp-relay.virtual-servers.v.members=plain")
			.run();
		port = ((WebServerApplicationContext) relay).getWebServer().getPort();
	}

	@AfterAll
	static void stop() throws Exception {
		relay.close();
		upstream.close();
	}

	@Test
	void aClientThatReadsNothingOfALargeJsonAnswerIsCutAfterTheClientWriteTimeout() throws Exception {
		double stallsBefore = stalls();
		int logMark = CapturedLogs.all().size();
		try (NonReadingClient client = NonReadingClient.post(port, "/mcp/plain", echo("echo"))) {
			String line = NonReadingClient.awaitAccessLine(logMark, "rpc_method=tools/call", "server=plain");

			assertThat(line).as("the access line of a client that read nothing")
				.contains("outcome=client_error")
				.contains("reason=client_write_timeout");
			assertThat(stalls()).as("counted as a stalled client").isEqualTo(stallsBefore + 1);
			assertThat(client.readToTheEnd()).as("the client's connection was closed").isEqualTo(-1);
		}
	}

	@Test
	void aClientThatReadsNothingOfAVirtualServersLargeJsonAnswerIsCutLikewise() throws Exception {
		McpSession session = McpSession.open(new RawHttp(port), "v");
		double stallsBefore = stalls();
		int logMark = CapturedLogs.all().size();
		try (NonReadingClient client = NonReadingClient.post(port, "/mcp/v", echo("plain_echo"),
				"Mcp-Session-Id: " + session.id(), "MCP-Protocol-Version: " + McpSession.PROTOCOL_VERSION)) {
			String line = NonReadingClient.awaitAccessLine(logMark, "rpc_method=tools/call", "server=v");

			assertThat(line).as("the virtual server's access line").contains("reason=client_write_timeout");
			assertThat(stalls()).as("counted as the member's stalled client").isEqualTo(stallsBefore + 1);
			assertThat(client.readToTheEnd()).as("the client's connection was closed").isEqualTo(-1);
		}
	}

	private static String echo(String tool) {
		return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
				+ "\",\"arguments\":{\"message\":\"" + MESSAGE + "\"}}}";
	}

	private static double stalls() {
		Counter counter = relay.getBean(MeterRegistry.class)
			.find(RelayMeters.CLIENT_STALLS)
			.tag(RelayMeters.SERVER, "plain")
			.counter();
		return counter == null ? 0 : counter.count();
	}

}
