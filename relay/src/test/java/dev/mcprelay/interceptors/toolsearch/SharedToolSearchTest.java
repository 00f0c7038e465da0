package dev.mcprelay.interceptors.toolsearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Two relays over one real Redis server ({@code sessions.store: redis}) share tool-search sessions: a search on one
 * is honoured on the other, in its list and its calls. With Redis gone, a tool-search server answers 503 with a clear
 * error, and a pass-through server is unaffected.
 */
class SharedToolSearchTest {

	static TwoRelaysOverRedis relays;

	static ConfigurableApplicationContext first;

	static ConfigurableApplicationContext second;

	@BeforeAll
	static void start() throws Exception {
		relays = TwoRelaysOverRedis.start("--mcp-relay.servers.searching.url=" + TestUpstreams.SDK.url("/mcp"),
				"--mcp-relay.servers.searching.tool-search.enabled=true",
				"--mcp-relay.servers.plain.url=" + TestUpstreams.SDK.url("/mcp"));
		first = relays.first();
		second = relays.second();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relays != null) {
			relays.close();
		}
	}

	@Test
	void aSearchOnOneReplicaIsHonouredOnTheOtherAndRedisGoingAwayIsAClearError() throws Exception {
		McpSession opened = McpSession.open(new RawHttp(port(first)), "searching");
		String session = opened.id();
		assertThat(names(post(second, "searching", session, list(1)))).as("the other replica knows the session")
			.containsExactly("search_available_tools");

		HttpResponse<String> found = post(first, "searching", session,
				ToolSearchTest.call(2, "search_available_tools", "{\"query\":\"echo\"}"));
		assertThat(RawHttp.messagesOf(found).get(0).path("method").asText()).isEqualTo("notifications/tools/list_changed");

		assertThat(names(post(second, "searching", session, list(3)))).as("found on the first, listed on the second")
			.contains("echo");
		HttpResponse<String> called = post(second, "searching", session,
				ToolSearchTest.call(4, "echo", "{\"message\":\"across replicas\"}"));
		assertThat(RawHttp.messagesOf(called)).last().satisfies(
				answer -> assertThat(answer.at("/result/content/0/text").asText()).isEqualTo("across replicas"));

		McpSession plain = McpSession.open(new RawHttp(port(second)), "plain");
		relays.redis().kill();

		HttpResponse<String> unavailable = post(second, "searching", session, list(5));
		assertThat(unavailable.statusCode()).isEqualTo(503);
		JsonNode error = RawHttp.json(unavailable.body());
		assertThat(error.at("/id").asInt()).isEqualTo(5);
		assertThat(error.at("/error/data/reason").asText()).isEqualTo("session_store_unavailable");
		assertThat(error.at("/error/message").asText()).contains("session store");
		HttpResponse<String> passThrough = plain.post(ToolSearchTest.call(6, "echo", "{\"message\":\"still here\"}"));
		assertThat(RawHttp.messagesOf(passThrough)).as("a server without tool search does not need Redis").last()
			.satisfies(answer -> assertThat(answer.at("/result/content/0/text").asText()).isEqualTo("still here"));
	}

	private static String list(int id) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\"}";
	}

	private static List<String> names(HttpResponse<String> listed) {
		List<JsonNode> messages = RawHttp.messagesOf(listed);
		assertThat(messages).as(listed.body()).isNotEmpty();
		return messages.get(messages.size() - 1).at("/result/tools").findValuesAsText("name").stream()
			.filter(name -> !name.isEmpty()).distinct().toList();
	}

	private static HttpResponse<String> post(ConfigurableApplicationContext relay, String server, String session,
			String body) {
		RawHttp http = new RawHttp(port(relay));
		return http.send(http.post(server, body).header("Mcp-Session-Id", session)
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION));
	}

	private static int port(ConfigurableApplicationContext relay) {
		return TwoRelaysOverRedis.port(relay);
	}

}
