package dev.mcprelay.virtual;

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
import dev.mcprelay.testsupport.ScriptedUpstream;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;

/**
 * An answer a virtual server composes itself (here its merged {@code tools/list}, 4 MB) is written as a server's whole
 * answers are: a client that reads none of it is cut after {@code timeouts.client-write} (its members', here 2 s), its
 * connection closed, access log {@code reason=client_write_timeout}, the stall counted under the virtual server.
 * Before, the merged list was handed to the connection whole and never cut. The upstream is scripted, for a list of
 * 4 MB that the SDK server in this JVM does not offer.
 */
class VirtualStalledAnswerTest {

	private static final ScriptedUpstream UPSTREAM = new ScriptedUpstream();

	private static ConfigurableApplicationContext relay;

	private static int port;

	@BeforeAll
	static void start() {
		StringBuilder tools = new StringBuilder();
		String description = "d".repeat(2048);
		for (int i = 0; i < 2000; i++) {
			tools.append(i == 0 ? "" : ",").append("{\"name\":\"t").append(i).append("\",\"description\":\"")
				.append(description).append("\",\"inputSchema\":{\"type\":\"object\"}}");
		}
		String list = tools.toString();
		UPSTREAM.scriptWithBody((request, response, body) -> {
			if (body.contains("\"initialize\"")) {
				return ScriptedUpstream.initializeAnswer(response, body, "big", "member-session");
			}
			if (body.contains("\"tools/list\"")) {
				return response.status(200)
					.header("Content-Type", "application/json")
					.sendString(Mono.just(body.replaceFirst("(?s)\"method\".*",
							"\"result\":{\"tools\":[" + list + "]}}")));
			}
			if ("GET".equals(request.method().name())) {
				return response.status(405).send();
			}
			return response.status(202).send();
		});
		relay = new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class)
			.properties("server.port=0", "mcp-relay.servers.big.url=" + UPSTREAM.url("/mcp"),
					"mcp-relay.servers.big.max-buffered-body=8MB", "mcp-relay.servers.big.timeouts.client-write=2s",
					"mcp-relay.sessions.max-held-bytes=1MB", "mcp-relay.virtual-servers.v.members=big")
			.run();
		port = ((WebServerApplicationContext) relay).getWebServer().getPort();
	}

	@AfterAll
	static void stop() {
		relay.close();
		UPSTREAM.close();
	}

	@Test
	void aClientThatReadsNothingOfAVirtualServersMergedListIsCutAfterTheClientWriteTimeout() throws Exception {
		McpSession session = McpSession.open(new RawHttp(port), "v");
		double stallsBefore = stalls("v");
		int logMark = CapturedLogs.all().size();
		try (NonReadingClient client = NonReadingClient.post(port, "/mcp/v",
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", "Mcp-Session-Id: " + session.id(),
				"MCP-Protocol-Version: " + McpSession.PROTOCOL_VERSION)) {
			String line = NonReadingClient.awaitAccessLine(logMark, "rpc_method=tools/list", "server=v");

			assertThat(line).as("the virtual server's access line")
				.contains("outcome=client_error")
				.contains("reason=client_write_timeout");
			assertThat(stalls("v")).as("counted as the virtual server's stalled client").isEqualTo(stallsBefore + 1);
			assertThat(client.readToTheEnd()).as("the client's connection was closed").isEqualTo(-1);
		}
	}

	private static double stalls(String server) {
		Counter counter = relay.getBean(MeterRegistry.class)
			.find(RelayMeters.CLIENT_STALLS)
			.tag(RelayMeters.SERVER, server)
			.counter();
		return counter == null ? 0 : counter.count();
	}

}
