package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 * A virtual server's streamed answer to a client that stops reading is bounded as a pass-through stream's is
 * ({@code dev.mcprelay.proxy.ClientWriteWindowTest}): what the relay hands the client's connection and the client has
 * not taken is {@code sessions.max-held-bytes}, not the 128 whole events Reactor Netty's write takes ahead of the
 * socket; the client is cut under the member's {@code timeouts.client-write} (access log
 * {@code reason=client_write_timeout}, the member's stall counted, the connection closed). The member is the Java SDK's
 * server, streaming 200 progress notifications of 512 KB on the call's stream.
 */
class VirtualSlowClientTest {

	@Test
	void aClientThatReadsNothingOfAMembersStreamOfLargeEventsIsHandedTheBoundAndCut() throws Exception {
		try (SdkMcpUpstream member = SdkMcpUpstream.withBurst();
				ConfigurableApplicationContext relay = new SpringApplicationBuilder(McpRelayApplication.class,
						OwnEventLoops.class)
					.properties("server.port=0", "mcp-relay.servers.burster.url=" + member.url("/mcp"),
							"mcp-relay.servers.burster.max-buffered-body=2MB",
							"mcp-relay.servers.burster.timeouts.client-write=2s",
							"mcp-relay.sessions.max-held-bytes=1MB", "mcp-relay.virtual-servers.big.members=burster")
					.run()) {
			int port = ((WebServerApplicationContext) relay).getWebServer().getPort();
			McpSession session = McpSession.open(new RawHttp(port), "big");
			int logMark = CapturedLogs.all().size();
			String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"burster_burst\","
					+ "\"arguments\":{\"count\":200,\"size\":" + 512 * 1024 + "},\"_meta\":{\"progressToken\":1}}}";
			try (NonReadingClient client = NonReadingClient.post(port, "/mcp/big", body,
					"Mcp-Session-Id: " + session.id(), "MCP-Protocol-Version: " + McpSession.PROTOCOL_VERSION)) {
				// reads nothing: the member's relay gives up on its reader after client-write (2s) once it holds all it may
				String line = NonReadingClient.awaitAccessLine(logMark, "rpc_method=tools/call", "server=big");

				assertThat(line).contains("reason=client_write_timeout");
				Matcher bytes = Pattern.compile(" bytes=(\\d+)").matcher(line);
				assertThat(bytes.find()).as(line).isTrue();
				assertThat(Long.parseLong(bytes.group(1)))
					.as("handed to a client that read nothing: the bound (1 MB), an event (0.5 MB) and what the sockets "
							+ "took, never 128 events of 0.5 MB (64 MB)")
					.isLessThan(10L * 1024 * 1024);
				Counter stalls = relay.getBean(MeterRegistry.class)
					.find(RelayMeters.CLIENT_STALLS)
					.tag(RelayMeters.SERVER, "burster")
					.counter();
				assertThat(stalls).as("counted as a stalled client").isNotNull();
				assertThat(stalls.count()).isEqualTo(1);
				assertThat(client.readToTheEnd()).as("the client's connection was closed, as a pass-through one's is")
					.isEqualTo(-1);
			}
		}
	}

}
