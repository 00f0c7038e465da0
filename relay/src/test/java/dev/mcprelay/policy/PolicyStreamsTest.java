package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SseReader;

/**
 * Resources a caller may not read, on the paths that subscribe to them and tell of their changes: a
 * {@code resources/subscribe} is decided as the {@code resources/read} it subscribes to; an MCP 2026-07-28
 * {@code subscriptions/listen} goes upstream without the URIs the caller may not read (and its acknowledgment still
 * names every URI the client asked for, as for one that does not exist); {@code notifications/resources/updated} of
 * such a resource never reaches the client, on a listen's stream or the GET stream. And an answer of no known request
 * whose shape could answer a list (with the member of another method's result beside it) never reaches the client
 * past the policies' list stage. The server is scripted ({@link PolicyTestServer}): it tells every listener of every
 * change, and pushes what the test gives it on its GET stream.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyStreamsTest {

	static final PolicyTestServer SERVER = new PolicyTestServer();

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "none");
		registry.add("mcp-relay.servers.files.url", () -> SERVER.url("/mcp"));
		registry.add("mcp-relay.policies[0].name", () -> "no-secrets");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "files");
		registry.add("mcp-relay.policies[0].deny",
				() -> "mcp.method == \"resources/read\" && mcp.resource.uri.startsWith(\"res://secret\")");
	}

	@AfterAll
	static void stop() {
		SERVER.close();
	}

	@BeforeEach
	void clear() {
		SERVER.clear();
		SERVER.newStreams();
	}

	@Test
	void aSubscribeIsDecidedAsTheReadItSubscribesTo() {
		McpSession session = McpSession.open(new RawHttp(port), "files");
		JsonNode refused = last(session.post(request(2, "resources/subscribe", "{\"uri\":\"res://secret\"}")));
		assertThat(refused.at("/error/code").asInt()).as(refused.toString()).isEqualTo(-32002);
		assertThat(last(session.post(request(3, "resources/subscribe", "{\"uri\":\"res://public\"}"))).has("result"))
			.isTrue();
		assertThat(SERVER.received()).as("the refused subscribe never reached the server")
			.filteredOn(message -> message.path("method").asText().equals("resources/subscribe"))
			.extracting(message -> message.at("/params/uri").asText())
			.containsExactly("res://public");
	}

	/**
	 * A resource named by something other than a string (an object, an array, a number) names nothing a policy can
	 * decide: each such request is refused as malformed (-32602) before any policy, and never goes upstream, where a
	 * lenient server might read {@code {"uri":["res://secret"]}} as the secret.
	 */
	@Test
	void aResourceNamedByANonStringIsRefusedAsMalformedBeforeAnyPolicy() {
		McpSession session = McpSession.open(new RawHttp(port), "files");
		List<String> malformed = List.of(request(2, "resources/read", "{\"uri\":{\"href\":\"res://secret\"}}"),
				request(3, "resources/read", "{\"uri\":[\"res://secret\"]}"),
				request(4, "resources/subscribe", "{\"uri\":[\"res://secret\"]}"),
				request(5, "resources/unsubscribe", "{\"uri\":7}"),
				request(6, "completion/complete", "{\"ref\":{\"type\":\"ref/resource\",\"uri\":[\"res://secret/{id}\"]},"
						+ "\"argument\":{\"name\":\"id\",\"value\":\"1\"}}"),
				request(7, "completion/complete", "{\"ref\":{\"type\":\"ref/prompt\",\"name\":{\"n\":\"secret_prompt\"}},"
						+ "\"argument\":{\"name\":\"id\",\"value\":\"1\"}}"));
		for (String request : malformed) {
			JsonNode answer = last(session.post(request));
			assertThat(answer.at("/error/code").asInt()).as("%s -> %s", request, answer).isEqualTo(-32602);
		}
		RawHttp http = new RawHttp(port);
		JsonNode listen = last(http.send(http.post("files", request(8, "subscriptions/listen",
				"{\"notifications\":{\"resourceSubscriptions\":[\"res://public\",{\"uri\":\"res://secret\"}]}}"))
			.header("MCP-Protocol-Version", "2026-07-28")
			.header("Mcp-Method", "subscriptions/listen")));
		assertThat(listen.at("/error/code").asInt()).as("a listen: %s", listen).isEqualTo(-32602);
		assertThat(SERVER.received()).as("none went upstream")
			.extracting(message -> message.path("method").asText())
			.doesNotContain("resources/read", "resources/subscribe", "resources/unsubscribe", "completion/complete",
					"subscriptions/listen");
	}

	@Test
	void aListenLeavesOutWhatTheCallerMayNotReadAndItsStreamNeverTellsOfIt() {
		RawHttp http = new RawHttp(port);
		HttpResponse<String> listened = http.send(http.post("files", request(7, "subscriptions/listen",
				"{\"notifications\":{\"resourceSubscriptions\":[\"res://public\",\"res://secret\",\"res://secret/1\"],"
						+ "\"toolsListChanged\":true}}"))
			.header("MCP-Protocol-Version", "2026-07-28")
			.header("Mcp-Method", "subscriptions/listen"));
		List<JsonNode> messages = RawHttp.messagesOf(listened);

		assertThat(SERVER.received()).as("what went upstream subscribes to what the caller may read, and only that")
			.filteredOn(message -> message.path("method").asText().equals("subscriptions/listen"))
			.singleElement()
			.satisfies(listen -> assertThat(listen.at("/params/notifications/resourceSubscriptions").toString())
				.isEqualTo("[\"res://public\"]"));
		assertThat(messages).as("updates of what the caller may not read never reach it: %s", messages)
			.filteredOn(message -> message.path("method").asText().equals("notifications/resources/updated"))
			.extracting(message -> message.at("/params/uri").asText())
			.containsExactly("res://public");
		assertThat(messages).as("the acknowledgment names every URI asked for, as it would for one that does not exist")
			.filteredOn(message -> message.path("method").asText().equals("notifications/subscriptions/acknowledged"))
			.singleElement()
			.satisfies(ack -> assertThat(ack.at("/params/notifications/resourceSubscriptions").toString())
				.isEqualTo("[\"res://public\",\"res://secret\",\"res://secret/1\"]"));
		assertThat(messages.get(messages.size() - 1).at("/result/resultType").asText()).isEqualTo("complete");
	}

	@Test
	void updatesOfWhatTheCallerMayNotReadNeverReachItOnTheGetStream() throws Exception {
		McpSession session = McpSession.open(new RawHttp(port), "files");
		SERVER.push(PolicyTestServer.updated("res://secret"));
		SERVER.push(PolicyTestServer.updated("res://public"));

		List<SseReader.Event> events = SseReader.read(getStream(session), 1, Duration.ofSeconds(20));
		assertThat(events.get(0).data().at("/params/uri").asText()).as("the first update to reach the client")
			.isEqualTo("res://public");
	}

	@Test
	void answersOfNoKnownRequestNeverPassTheListStageOnTheGetStream() throws Exception {
		McpSession session = McpSession.open(new RawHttp(port), "files");
		for (String shape : List.of("{\"tools\":[{\"name\":\"t\"}],\"content\":[]}",
				"{\"tools\":[{\"name\":\"t\"}],\"contents\":[]}", "{\"prompts\":[{\"name\":\"p\"}],\"tools\":[]}",
				"{\"resources\":[{\"uri\":\"res://secret\",\"name\":\"s\"}],\"content\":[]}",
				"{\"resourceTemplates\":[{\"uriTemplate\":\"res://secret/{id}\",\"name\":\"s\"}],\"messages\":[]}")) {
			SERVER.push("{\"jsonrpc\":\"2.0\",\"id\":\"pushed\",\"result\":" + shape + "}");
		}
		SERVER.push("{\"jsonrpc\":\"2.0\",\"id\":\"list\",\"result\":{\"resources\":[{\"uri\":\"res://secret\","
				+ "\"name\":\"s\"},{\"uri\":\"res://public\",\"name\":\"p\"}]}}");

		List<SseReader.Event> events = SseReader.read(getStream(session), 1, Duration.ofSeconds(20));
		assertThat(events.get(0).data().path("id").asText()).as("the first answer to reach the client: %s", events)
			.isEqualTo("list");
		assertThat(events.get(0).data().at("/result/resources").findValuesAsText("uri"))
			.as("a list answer of no known request meets the list stage").containsExactly("res://public");
	}

	private InputStream getStream(McpSession session) {
		RawHttp http = new RawHttp(port);
		HttpResponse<InputStream> stream = http.open(http.request("files")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.GET());
		assertThat(stream.statusCode()).isEqualTo(200);
		return stream.body();
	}

	private static JsonNode last(HttpResponse<String> response) {
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as(response.statusCode() + " " + response.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

	private static String request(int id, String method, String params) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + params + "}";
	}

}
