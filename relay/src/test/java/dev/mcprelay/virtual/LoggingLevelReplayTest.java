package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

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
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * The level a client asked for with {@code logging/setLevel} reaches a member that was down then and joins the
 * virtual session later: the member's first messages in its session are {@code initialize},
 * {@code notifications/initialized} and the client's level, before the client's next request (the Java SDK's server,
 * which records every request it receives, started on its port after the {@code setLevel}).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class LoggingLevelReplayTest {

	private static final int LATE_PORT = TestUpstreams.freePort();

	private static SdkMcpUpstream late;

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.alpha.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.late.url", () -> "http://127.0.0.1:" + LATE_PORT + "/mcp");
		registry.add("mcp-relay.servers.late.timeouts.non-streaming", () -> "2s");
		registry.add("mcp-relay.virtual-servers.pair.members", () -> "alpha,late");
	}

	@AfterAll
	static void stopLate() throws Exception {
		if (late != null) {
			late.close();
		}
	}

	@Test
	void aMemberDownAtSetLevelGetsTheLevelWhenItJoinsBeforeTheCallersNextRequest() {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "pair");
		List<JsonNode> setLevel = RawHttp.messagesOf(session.post(
				"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"warning\"}}"));
		assertThat(setLevel.toString()).as("late was down, and is named").contains("'late'");

		late = SdkMcpUpstream.onPort(LATE_PORT);
		List<JsonNode> called = RawHttp.messagesOf(session.post(
				"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"late_echo\","
						+ "\"arguments\":{\"message\":\"hi\"}}}"));

		assertThat(called.get(called.size() - 1).at("/result/content/0/text").asText()).as("%s", called)
			.isEqualTo("hi");
		List<JsonNode> received = late.seen()
			.stream()
			.filter(seen -> seen.method().equals("POST"))
			.map(SdkMcpUpstream.Seen::json)
			.toList();
		assertThat(received).extracting(message -> message.path("method").asText())
			.as("the level before the client's next request: %s", received)
			.containsExactly("initialize", "notifications/initialized", "logging/setLevel", "tools/call");
		assertThat(received.get(2).at("/params/level").asText()).isEqualTo("warning");
	}

}
