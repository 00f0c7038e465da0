package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.StringJoiner;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import reactor.core.publisher.Mono;

/**
 * How many pages of a server's {@code tools/list} the {@code Mcp-Param-*} check reads for a call of a view that never
 * listed (review 43h F-3: a caller that varied {@code X-Tenant}, a view header, made each call a listing of all 50
 * pages), against a scripted upstream whose list is {@value #PAGES} pages of 20 tools (no real server pages its list
 * on demand): {@code route} on page 1 and {@code far} on page 30 declare {@code port} as {@code Port}. The check reads
 * the pages up to the called tool's; only a name no page lists reads them all, once per view, and the view's kept
 * catalogue then answers.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ParameterHeaderPagesTest {

	static final ScriptedUpstream UPSTREAM = new ScriptedUpstream();

	static final int PAGES = 50;

	static {
		UPSTREAM.scriptWithBody((request, response, body) -> {
			if (body.isEmpty() || !body.contains("\"id\"")) {
				return response.status(202).send();
			}
			JsonNode message = RawHttp.json(body);
			String method = message.path("method").asText();
			if (method.equals("initialize")) {
				return ScriptedUpstream.initializeAnswer(response, body, "scripted", "s-1");
			}
			String result = method.equals("tools/list") ? page(message.at("/params/cursor").asText("1"))
					: method.equals("tools/call") ? "{\"content\":[{\"type\":\"text\",\"text\":\"ran\"}]}" : "{}";
			return response.header("Content-Type", "application/json").sendString(Mono.just(
					"{\"jsonrpc\":\"2.0\",\"id\":" + message.get("id") + ",\"result\":" + result + "}"));
		});
	}

	/** Page {@code cursor} (1 to {@value #PAGES}) of the list: 20 tools, and the next page's cursor but on the last. */
	private static String page(String cursor) {
		int number = Integer.parseInt(cursor);
		StringJoiner tools = new StringJoiner(",", "{\"tools\":[", "]");
		for (int each = 0; each < 20; each++) {
			tools.add("{\"name\":\"tool_" + number + "_" + each + "\",\"inputSchema\":{\"type\":\"object\"}}");
		}
		String declaring = number == 1 ? "route" : number == 30 ? "far" : null;
		if (declaring != null) {
			tools.add("{\"name\":\"" + declaring + "\",\"inputSchema\":{\"type\":\"object\",\"properties\":"
					+ "{\"port\":{\"type\":\"integer\",\"x-mcp-header\":\"Port\"}}}}");
		}
		return tools + (number < PAGES ? ",\"nextCursor\":\"" + (number + 1) + "\"}" : "}");
	}

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "none");
		for (String server : List.of("first", "later", "none")) {
			registry.add("mcp-relay.servers." + server + ".url", () -> UPSTREAM.url("/" + server + "/mcp"));
			registry.add("mcp-relay.servers." + server + ".headers[0].name", () -> "X-Tenant");
			registry.add("mcp-relay.servers." + server + ".headers[0].from-request-header", () -> "X-Tenant");
		}
	}

	@AfterAll
	static void stop() {
		UPSTREAM.close();
	}

	@Test
	void aCallOfAToolOnPageOneOfFiftyReadsOnlyThatPage() {
		McpSession session = McpSession.open(new RawHttp(port), "first");
		for (int id = 1; id <= 5; id++) {
			int before = pagesRead("/first");
			JsonNode ran = call(session, id, "route", 8080, "8080", "tenant-" + id);
			assertThat(ran.at("/result/content/0/text").asText()).as("checked, ran: %s", ran).isEqualTo("ran");
			assertThat(pagesRead("/first") - before).as("the pages read for a call of a fresh view").isEqualTo(1);
		}
		JsonNode refused = call(session, 6, "route", 8080, "22", "tenant-6");
		assertThat(refused.at("/error/data/reason").asText()).as("the declaration found decides: %s", refused)
			.isEqualTo("header_mismatch");
		int before = pagesRead("/first");
		assertThat(call(session, 7, "route", 8080, "8080", "tenant-6").has("result")).isTrue();
		assertThat(pagesRead("/first")).as("the view's kept definition answers its next call").isEqualTo(before);
	}

	@Test
	void aCallOfAToolOnPageThirtyReadsThirtyPages() {
		McpSession session = McpSession.open(new RawHttp(port), "later");
		JsonNode refused = call(session, 1, "far", 1, "22", "acme");
		assertThat(refused.at("/error/data/reason").asText()).as("%s", refused).isEqualTo("header_mismatch");
		assertThat(pagesRead("/later")).isEqualTo(30);
	}

	/**
	 * The worst case for one call: a name no page lists reads the whole list, once for the view; the view's catalogue,
	 * listed whole, then answers every name without a listing.
	 */
	@Test
	void aNameNoPageListsReadsTheWholeListOnceForTheView() {
		McpSession session = McpSession.open(new RawHttp(port), "none");
		assertThat(call(session, 1, "nosuch", 1, "1", "acme").has("result")).as("not published: the server answers")
			.isTrue();
		assertThat(pagesRead("/none")).isEqualTo(PAGES);
		assertThat(call(session, 2, "nosuch", 1, "1", "acme").has("result")).isTrue();
		JsonNode refused = call(session, 3, "far", 1, "22", "acme");
		assertThat(refused.at("/error/data/reason").asText()).as("%s", refused).isEqualTo("header_mismatch");
		assertThat(pagesRead("/none")).as("the catalogue listed whole answers").isEqualTo(PAGES);
	}

	/** {@code tools/call} of {@code tool} with {@code port}, its {@code Mcp-Param-Port} and {@code X-Tenant}. */
	private static JsonNode call(McpSession session, int id, String tool, int port, String header, String tenant) {
		var request = session.request("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"" + tool + "\",\"arguments\":{\"port\":" + port + "}}}")
			.header("Mcp-Param-Port", header)
			.header("X-Tenant", tenant);
		HttpResponse<String> response = new RawHttp(0).send(request);
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as("%d %s", response.statusCode(), response.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

	private static int pagesRead(String path) {
		return (int) UPSTREAM.seen().stream()
			.filter(seen -> seen.uri().startsWith(path) && seen.body().contains("\"tools/list\""))
			.count();
	}

}
