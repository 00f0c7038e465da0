package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

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
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.SseReader.Event;
import dev.mcprelay.testsupport.SseReader;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The server-to-client stream of a virtual session: one client GET stream carries every member's stream, each
 * member's stream is reopened on its own from where it stopped, the merged event ids resume every member where it
 * stopped, and two members' requests with the same id reach the client under different ids, each answer going back to
 * the member that asked with its own id. The members are a scripted upstream: what no real server does on demand
 * (event ids, a stream that ends, a request on the GET stream at once).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class MergedStreamTest {

	static final ScriptedUpstream MEMBERS = new ScriptedUpstream();

	/** Each GET a member saw, as member:Last-Event-ID ({@code -} for none). */
	static final List<String> GETS = new CopyOnWriteArrayList<>();

	/** Each client answer a member got, as member:id. */
	static final List<String> ANSWERS = new CopyOnWriteArrayList<>();

	/** Each cancellation a member got, as member:requestId. */
	static final List<String> CANCELLED = new CopyOnWriteArrayList<>();

	/** Whether member a's first stream dies mid-stream (its connection reset after one event). */
	static volatile boolean aDies;

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.a.url", () -> MEMBERS.url("/a"));
		registry.add("mcp-relay.servers.b.url", () -> MEMBERS.url("/b"));
		registry.add("mcp-relay.virtual-servers.pair.members", () -> "a,b");
	}

	@AfterAll
	static void stop() {
		MEMBERS.close();
	}

	@BeforeEach
	void script() {
		GETS.clear();
		ANSWERS.clear();
		CANCELLED.clear();
		aDies = false;
		MEMBERS.clear();
		MEMBERS.scriptWithBody((request, response, body) -> {
			String member = request.uri().substring(1, 2);
			if (request.method().name().equals("GET")) {
				String last = request.requestHeaders().get("Last-Event-ID");
				GETS.add(member + ":" + (last == null ? "-" : last));
				if (last == null && member.equals("a") && aDies) {
					return response.header("Content-Type", "text/event-stream")
						.sendString(Flux.concat(Mono.just("id: a1\ndata: {\"jsonrpc\":\"2.0\",\"method\":"
								+ "\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"from a\"}}\n\n"),
								Mono.delay(Duration.ofMillis(200)).then(Mono.error(new IllegalStateException("a dies")))));
				}
				if (last == null) {
					// Two events, the second a request to the client, then the stream ends.
					return response.header("Content-Type", "text/event-stream").sendString(Flux.just(
							"id: " + member + "1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
									+ "\"params\":{\"level\":\"info\",\"data\":\"from " + member + "\"}}\n\n",
							"id: " + member + "2\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"roots/list\"}\n\n"));
				}
				return response.header("Content-Type", "text/event-stream")
					.sendString(Flux.concat(Mono.just("id: " + member + "3\ndata: {\"jsonrpc\":\"2.0\",\"method\":"
							+ "\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"again " + member
							+ "\"}}\n\n"), Mono.never()));
			}
			if (request.method().name().equals("DELETE")) {
				return response.status(200).send();
			}
			JsonNode message = RawHttp.json(body);
			if (!message.has("method")) {
				ANSWERS.add(member + ":" + message.path("id").asText());
				return response.status(202).send();
			}
			String method = message.path("method").asText();
			if (method.equals("notifications/cancelled")) {
				CANCELLED.add(member + ":" + message.at("/params/requestId"));
			}
			if (method.startsWith("notifications/")) {
				return response.status(202).send();
			}
			if (method.equals("subscriptions/listen")) {
				return response.header("Content-Type", "text/event-stream").sendString(Flux.just(
						"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\"}\n\n",
						"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n",
						"data: {\"jsonrpc\":\"2.0\",\"id\":" + message.get("id") + ",\"result\":{\"resultType\":\"complete\"}}\n\n"));
			}
			String result = switch (method) {
				case "initialize" -> "{\"protocolVersion\":\"" + (member.equals("b") ? "2025-03-26" : "2025-06-18")
						+ "\",\"capabilities\":{\"tools\":{}},"
						+ "\"serverInfo\":{\"name\":\"" + member + "\",\"version\":\"1\"}}";
				// a pages its tools: t, then (after cursor p2) u; b has t only
				case "tools/list" -> member.equals("a") && !message.path("params").has("_meta")
						? (message.path("params").path("cursor").asText().equals("p2")
								? "{\"tools\":[{\"name\":\"u\",\"inputSchema\":{\"type\":\"object\"}}]}"
								: "{\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}],\"nextCursor\":\"p2\"}")
						: "{\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}]}";
				default -> "{}";
			};
			return response.header("Content-Type", "application/json")
				.header("Mcp-Session-Id", "session-" + member)
				.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":" + message.get("id") + ",\"result\":" + result + "}"));
		});
	}

	@Test
	void oneStreamCarriesEveryMemberAndEachIsReopenedFromWhereItStopped() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "pair");

		HttpResponse<InputStream> stream = http.open(http.request("pair").header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id()).GET());
		assertThat(stream.statusCode()).isEqualTo(200);
		List<Event> events = read(stream.body(), 6);

		assertThat(events).extracting(event -> event.data().path("params").path("data").asText())
			.contains("from a", "from b", "again a", "again b");
		List<Event> requests = events.stream().filter(event -> event.data().has("id")).toList();
		assertThat(requests).hasSize(2);
		assertThat(requests.get(0).data().get("id")).as("two members' requests with id 7 are two ids to the client")
			.isNotEqualTo(requests.get(1).data().get("id"));
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(GETS).contains("a:a2", "b:b2"));

		for (Event request : requests) {
			HttpResponse<String> answered = session.post("{\"jsonrpc\":\"2.0\",\"id\":" + request.data().get("id")
					+ ",\"result\":{\"roots\":[]}}");
			assertThat(answered.statusCode()).isEqualTo(202);
		}
		assertThat(ANSWERS).containsExactlyInAnyOrder("a:7", "b:7");

		// A client that got only the first four events (its stream was cut) resumes: the relay took more of each
		// member since, so each is read again from where the client stopped, and its stream takes the first's place.
		Event fourth = events.get(3);
		Map<String, String> positions = MemberIds.positions(fourth.id());
		assertThat(positions).as("the merged id holds every member's position").containsKeys("a", "b");
		GETS.clear();
		HttpResponse<InputStream> resumed = http.open(http.request("pair").header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id()).header("Last-Event-ID", fourth.id()).GET());
		read(resumed.body(), 2);
		assertThat(GETS).containsExactlyInAnyOrder("a:" + positions.get("a"), "b:" + positions.get("b"));
	}

	@Test
	void aMemberThatDiesMidStreamIsReopenedWhileTheOthersGoOn() throws Exception {
		aDies = true;
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "pair");

		HttpResponse<InputStream> stream = http.open(http.request("pair").header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id()).GET());
		List<Event> events = read(stream.body(), 5);

		assertThat(events).extracting(event -> event.data().path("params").path("data").asText())
			.contains("from a", "from b", "again a", "again b");
		assertThat(GETS).as("a was reopened after the last event it sent").contains("a:a1");
	}

	@Test
	void eachMemberKeepsTheProtocolVersionItNegotiated() {
		McpSession session = McpSession.open(new RawHttp(port), "pair");
		session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");

		List<ScriptedUpstream.Seen> lists = MEMBERS.seen().stream().filter(seen -> seen.body().contains("tools/list"))
			.toList();
		assertThat(lists).hasSize(2).allSatisfy(seen -> assertThat(seen.headers().getFirst("MCP-Protocol-Version"))
			.isEqualTo(seen.uri().startsWith("/b") ? "2025-03-26" : "2025-06-18"));
		assertThat(lists).allSatisfy(seen -> assertThat(seen.headers().getFirst("Mcp-Session-Id"))
			.isEqualTo("session-" + seen.uri().charAt(1)));
	}

	@Test
	void aClientWithoutSessionsGetsMergedListsKeptUntilAMemberSaysTheyChanged() {
		RawHttp http = new RawHttp(port);
		String meta = ",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}";

		for (int id = 1; id <= 2; id++) {
			List<JsonNode> listed = RawHttp.messagesOf(http.send(http.post("pair",
					"{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\"" + meta + "}")));
			assertThat(listed.get(0).at("/result/tools").findValuesAsText("name")).containsExactly("a_t", "b_t");
		}
		assertThat(listsSeen()).as("the second list came from what the first asked").isEqualTo(2);

		List<JsonNode> listened = RawHttp.messagesOf(http.send(http.post("pair",
				"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"subscriptions/listen\"" + meta + "}")));
		assertThat(listened).extracting(message -> message.path("method").asText("result")).containsExactly(
				"notifications/subscriptions/acknowledged", "notifications/tools/list_changed",
				"notifications/tools/list_changed", "result");
		assertThat(listened.get(3).path("id").asInt()).as("one answer to the client's one request").isEqualTo(3);

		http.send(http.post("pair", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"" + meta + "}"));
		assertThat(listsSeen()).as("asked again once the members said their tools changed").isEqualTo(4);
	}

	private static long listsSeen() {
		return MEMBERS.seen().stream().filter(seen -> seen.body().contains("\"tools/list\"")).count();
	}

	@Test
	void aMembersNextPageIsCarriedInACursorThatOnlyItsSessionCanUse() {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "pair");
		McpSession other = McpSession.open(http, "pair");

		JsonNode first = RawHttp.json(session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}").body());
		assertThat(first.at("/result/tools").findValuesAsText("name")).containsExactly("a_t", "b_t");
		String cursor = first.at("/result/nextCursor").asText();
		// the relay's own cursor, not the member's passed on (its signature is random text: it may well contain "p2")
		assertThat(cursor).as("a has more").isNotEmpty().isNotEqualTo("p2");
		MEMBERS.clear();

		String next = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"cursor\":\"" + cursor + "\"}}";
		JsonNode second = RawHttp.json(session.post(next).body());
		assertThat(second.at("/result/tools").findValuesAsText("name")).containsExactly("a_u");
		assertThat(second.at("/result/nextCursor").isMissingNode()).isTrue();
		// (the GET streams the relay holds for sessions, this one's and earlier tests', reconnect meanwhile)
		assertThat(MEMBERS.seen().stream().filter(seen -> seen.method().equals("POST")))
			.as("only the member with more pages is asked, with its own cursor")
			.singleElement()
			.satisfies(seen -> assertThat(RawHttp.json(seen.body()).at("/params/cursor").asText()).isEqualTo("p2"));

		JsonNode stale = RawHttp.json(other.post(next).body());
		assertThat(stale.at("/error/code").asInt()).as("another session's cursor").isEqualTo(-32602);
		JsonNode altered = RawHttp.json(session.post(next.replace(cursor, "x" + cursor)).body());
		assertThat(altered.at("/error/code").asInt()).isEqualTo(-32602);
		JsonNode notText = RawHttp.json(session.post(
				"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"cursor\":42}}").body());
		assertThat(notText.at("/error/data/reason").asText()).isEqualTo("invalid_cursor");
	}

	@Test
	void anAnswerWithAnIdTheRelayNeverGaveIsRefusedAndReachesNoMember() {
		McpSession session = McpSession.open(new RawHttp(port), "pair");

		for (String id : List.of("7", "\"mcp-relay.v1.a.Nw.invented\"", "\"mcp-relay.v1.a.Nw\"", "\"other\"")) {
			HttpResponse<String> refused = session.post("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{}}");
			assertThat(refused.statusCode()).as(id).isEqualTo(400);
			assertThat(RawHttp.json(refused.body()).at("/error/data/reason").asText()).isEqualTo("unknown_request_id");
		}
		assertThat(ANSWERS).isEmpty();
	}

	@Test
	void aCancellationOfAMembersRequestReachesThatMemberAloneUnderItsOwnId() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "pair");
		HttpResponse<InputStream> stream = http.open(http.request("pair").header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id()).GET());
		List<Event> requests = read(stream.body(), 6).stream().filter(event -> event.data().has("id")).toList();
		assertThat(requests).as("a's roots/list 7 and b's").hasSize(2);
		String member = requests.get(0).data().get("id").asText().substring("mcp-relay.v1.".length(), 14);

		HttpResponse<String> cancelled = session.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
				+ "\"params\":{\"requestId\":" + requests.get(0).data().get("id") + ",\"reason\":\"closed\"}}");

		assertThat(cancelled.statusCode()).isEqualTo(202);
		assertThat(CANCELLED).as("the member that asked, under the id it gave; no other member")
			.containsExactly(member + ":7");

		HttpResponse<String> forged = session.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
				+ "\"params\":{\"requestId\":\"mcp-relay.v1.a.Nw.invented\"}}");
		assertThat(forged.statusCode()).isEqualTo(400);
		assertThat(RawHttp.json(forged.body()).at("/error/data/reason").asText()).isEqualTo("unknown_request_id");
		HttpResponse<String> own = session.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
				+ "\"params\":{\"requestId\":12}}");
		assertThat(own.statusCode()).isEqualTo(202);
		assertThat(CANCELLED).as("a cancellation of the client's own request goes to every member as it came")
			.containsExactlyInAnyOrder(member + ":7", "a:12", "b:12");
	}

	private static List<Event> read(InputStream in, int count) throws Exception {
		return SseReader.read(in, count, Duration.ofSeconds(15));
	}

}
