package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * A member that has no such list (review 43j N-4): {@code calc}, the SDK's server with tools and no resources, answers
 * {@code resources/list} and {@code resources/templates/list} -32601 (method not found). A virtual server routes
 * {@code resources/read} by its members' resources and templates; that answer is kept as "lists none" for the lists'
 * usual age, as a result is, so reads do not ask the member again each (they did: one upstream request per read), and
 * the member is not said to be unavailable.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualMemberWithoutAListTest {

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "none");
		registry.add("mcp-relay.servers.docs.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.calc.url", () -> TestUpstreams.SDK.url("/tools-only"));
		registry.add("mcp-relay.virtual-servers.both.members", () -> "docs,calc");
	}

	@Test
	void aMemberWithoutResourcesIsAskedForThemOnceForManyReads() {
		McpSession session = McpSession.open(new RawHttp(port), "both");
		for (int id = 1; id <= 5; id++) {
			List<JsonNode> answered = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":" + id
					+ ",\"method\":\"resources/read\",\"params\":{\"uri\":\"memo://one\"}}"));
			JsonNode read = answered.get(answered.size() - 1);
			assertThat(read.at("/result/contents/0/uri").asText()).as("routed to docs: %s", read).isEqualTo("memo://one");
		}
		assertThat(asked("resources/templates/list")).as("calc's -32601 kept as listing no templates").isEqualTo(1);
		assertThat(asked("resources/list")).as("and no resources").isEqualTo(1);

		List<JsonNode> listed = RawHttp.messagesOf(
				session.post("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/templates/list\"}"));
		assertThat(listed.get(listed.size() - 1).at("/result/resourceTemplates/0/uriTemplate").asText())
			.isEqualTo("memo://{id}");
		assertThat(listed).as("calc lists none; it is not left out as unavailable")
			.noneMatch(message -> message.path("method").asText().equals("notifications/message"));
	}

	/** How many requests of {@code method} reached the tools-only server. */
	private static long asked(String method) {
		return TestUpstreams.SDK.seen()
			.stream()
			.filter(seen -> seen.path().equals("/tools-only") && seen.body().contains("\"" + method + "\""))
			.count();
	}

}
