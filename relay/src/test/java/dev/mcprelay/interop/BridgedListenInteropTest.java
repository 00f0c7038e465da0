package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.RawHttp;

/**
 * The version bridge, direction 2 (issue 46, review 46c findings 6 and 7): a 2026-07-28 client's
 * {@code subscriptions/listen} to a 2025 server of the TypeScript SDK 1.x ({@code interop/ask-server.mjs}). After the
 * server restarted (it forgot every session and answers the listen's GET 404) the listen opens the session again and
 * goes on: it hears the server's list change. Its resource subscriptions are bounded (more than 100 URIs: -32602
 * before anything is sent), sent at most four at a time, acknowledged without waiting for the server's answers, and
 * only those sent are unsubscribed when the client leaves.
 */
class BridgedListenInteropTest {

	private static final ObjectMapper JSON = new ObjectMapper();

	private static AskServer server;

	/** A 2025 server that routes only POST: every GET answered 404 ("Cannot GET /mcp"). */
	private static AskServer postOnly;

	private static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		server = new AskServer();
		postOnly = new AskServer(java.util.Map.of("GET404", "1"));
		relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class)
			.properties("server.port=0", "server.address=127.0.0.1", "mcp-relay.servers.v1.url=" + server.url(),
					"mcp-relay.servers.v1.protocol-versions=2025-11-25", "mcp-relay.servers.p.url=" + postOnly.url(),
					"mcp-relay.servers.p.protocol-versions=2025-11-25")
			.run();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (server != null) {
			server.close();
		}
		if (postOnly != null) {
			postOnly.close();
		}
	}

	@Test
	void aListenAfterTheServerRestartedOpensTheSessionAgainAndHearsItsListChange() throws Exception {
		RawHttp http = new RawHttp(port());
		JsonNode listed = RawHttp.messagesOf(http.send(http.post("v1", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
				+ "\"tools/list\",\"params\":{" + AskServer.meta("restarted") + "}}")
			.header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "tools/list"))).get(0);
		assertThat(listed.at("/result/tools").size()).as("the session opened: %s", listed).isPositive();
		server.restart();

		int getsBefore = server.stats().path("gets").size();
		try (Socket client = AskServer.post(port(), "v1", listen(2, "restarted", "\"toolsListChanged\":true"),
				"subscriptions/listen", null)) {
			BufferedReader events = reader(client);
			JsonNode acknowledged = nextMessage(events);
			assertThat(acknowledged.path("method").asText()).as("%s", acknowledged)
				.isEqualTo("notifications/subscriptions/acknowledged");
			// the forgotten session's GET (404), then the GET of the session opened again, which the server holds
			JsonNode stats = server.awaitStats("the relay opened the session again and its GET stream",
					seen -> seen.path("gets").size() >= getsBefore + 2 && seen.path("sessions").asInt() == 1);
			assertThat(stats.path("gets").get(stats.path("gets").size() - 1).asText())
				.as("the GET of a session the restarted server knows: %s", stats)
				.isNotEqualTo(stats.path("gets").get(getsBefore).asText());
			assertThat(stats.path("deletes").asInt()).as("the session replaced is ended, once: %s", stats).isEqualTo(1);
			// the server drops a change while the session's stream is not set up yet: it changes until one is heard
			java.util.concurrent.CompletableFuture<JsonNode> heard = java.util.concurrent.CompletableFuture
				.supplyAsync(() -> {
					try {
						return nextMessage(events);
					}
					catch (java.io.IOException ex) {
						throw new java.io.UncheckedIOException(ex);
					}
				});
			long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
			while (!heard.isDone()) {
				assertThat(System.nanoTime()).as("the listen heard a list change").isLessThan(deadline);
				server.change();
				Thread.sleep(250);
			}
			JsonNode changed = heard.get();
			assertThat(changed.path("method").asText()).as("the listen goes on in the new session: %s", changed)
				.isEqualTo("notifications/tools/list_changed");
		}
	}

	/**
	 * Review 46f, F2: a 2025 server that routes only POST answers every GET 404. Each listen took the 404 for a session
	 * the server ended, opened a new one and ended none (20 listens, 21 sessions at the server, no DELETE). The session
	 * answers the relay's ping: the 404 was about the GET, the listen ends {@code listen_not_available}, and the
	 * session is remembered as one without a stream: later listens are refused at once, nothing sent.
	 */
	@Test
	void aServerThatRoutesOnlyPostGetsNoNewSessionPerListen() throws Exception {
		RawHttp http = new RawHttp(port());
		String list = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{"
				+ AskServer.meta("post-only") + "}}";
		JsonNode listed = RawHttp.messagesOf(http.send(http.post("p", list).header("MCP-Protocol-Version",
				"2026-07-28").header("Mcp-Method", "tools/list"))).get(0);
		assertThat(listed.at("/result/tools").size()).as("the session opened: %s", listed).isPositive();
		for (int listen = 1; listen <= 5; listen++) {
			JsonNode ended;
			try (Socket client = AskServer.post(port(), "p", listen(10 + listen, "post-only",
					"\"toolsListChanged\":true"), "subscriptions/listen", null)) {
				ended = errorOf(reader(client));
			}
			assertThat(ended.at("/error/data/reason").asText()).as("listen %s: %s", listen, ended)
				.isEqualTo("listen_not_available");
		}
		JsonNode stats = postOnly.stats();
		assertThat(stats.path("initializes").asInt()).as("one session, whatever the listens: %s", stats).isEqualTo(1);
		assertThat(stats.path("sessions").asInt()).as("%s", stats).isEqualTo(1);
		assertThat(stats.path("deletes").asInt()).as("none replaced, none ended: %s", stats).isZero();
		assertThat(stats.path("gets").size()).as("only the first listen sent a GET: %s", stats).isEqualTo(1);
		JsonNode again = RawHttp.messagesOf(http.send(http.post("p", list.replace("\"id\":1", "\"id\":2"))
			.header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "tools/list"))).get(0);
		assertThat(again.at("/result/tools").size()).as("the session goes on: %s", again).isPositive();
		assertThat(postOnly.stats().path("initializes").asInt()).isEqualTo(1);
	}

	@Test
	void aListenOfTooManyResourcesIsRefusedBeforeAnythingIsSent() throws Exception {
		int subscribesBefore = server.stats().path("subscribes").size();
		String uris = IntStream.range(0, 101).mapToObj(i -> "\"memo://" + i + "\"").collect(Collectors.joining(","));
		JsonNode refused;
		// read off a socket: a listen wrongly served is a stream that never ends, and its first message tells
		try (Socket client = AskServer.post(port(), "v1", listen(3, "many", "\"resourceSubscriptions\":[" + uris + "]"),
				"subscriptions/listen", null)) {
			refused = firstJson(reader(client));
		}
		assertThat(refused.at("/error/code").asInt()).as("%s", refused).isEqualTo(-32602);
		assertThat(refused.at("/error/data/reason").asText()).isEqualTo("too_many_resource_subscriptions");
		assertThat(server.stats().path("subscribes").size()).as("no subscribe sent").isEqualTo(subscribesBefore);
	}

	@Test
	void aListenIsAcknowledgedBeforeItsSubscribesAreAnsweredAndUnsubscribesOnlyWhatItSent() throws Exception {
		List<String> held = List.of("hold:1", "hold:2", "hold:3", "hold:4");
		try (Socket client = AskServer.post(port(), "v1", listen(4, "subscriber", "\"resourceSubscriptions\":["
				+ "\"hold:1\",\"hold:2\",\"hold:3\",\"hold:4\",\"memo://never\"]"), "subscriptions/listen", null)) {
			JsonNode acknowledged = nextMessage(reader(client));
			assertThat(acknowledged.path("method").asText()).as("acknowledged while no subscribe is answered: %s",
					acknowledged).isEqualTo("notifications/subscriptions/acknowledged");
			assertThat(acknowledged.at("/params/notifications/resourceSubscriptions")).extracting(JsonNode::asText)
				.containsExactly("hold:1", "hold:2", "hold:3", "hold:4", "memo://never");
			server.awaitStats("four subscribes in flight at once (the server answers none)",
					seen -> texts(seen.path("subscribes")).containsAll(held));
		}
		server.awaitStats("what was sent is unsubscribed once the client left",
				seen -> texts(seen.path("unsubscribes")).containsAll(held));
		// the subscribe of the fifth URI was never sent (at most four in flight): nothing of it may follow
		Thread.sleep(2000);
		JsonNode stats = server.stats();
		assertThat(ofThisListen(stats.path("subscribes"))).as("at most four in flight: %s", stats)
			.containsExactlyInAnyOrderElementsOf(held);
		assertThat(ofThisListen(stats.path("unsubscribes"))).as("only what was sent: %s", stats)
			.containsExactlyInAnyOrderElementsOf(held);
	}

	private static String listen(int id, String client, String notifications) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"subscriptions/listen\",\"params\":{"
				+ "\"notifications\":{" + notifications + "}," + AskServer.meta(client) + "}}";
	}

	private static BufferedReader reader(Socket client) throws java.io.IOException {
		return new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
	}

	/** The next JSON-RPC message of the event stream (the HTTP head and chunk sizes skipped). */
	private static JsonNode nextMessage(BufferedReader events) throws java.io.IOException {
		for (String line = events.readLine(); line != null; line = events.readLine()) {
			if (line.startsWith("data:")) {
				return JSON.readTree(line.substring(5).strip());
			}
		}
		throw new AssertionError("the stream ended without another message");
	}

	/** The first JSON-RPC error of an answer: a JSON body, or the first error of an event stream. */
	private static JsonNode errorOf(BufferedReader answer) throws java.io.IOException {
		JsonNode message = firstJson(answer);
		while (!message.has("error")) {
			message = nextMessage(answer);
		}
		return message;
	}

	/** The first JSON-RPC message of an answer: a JSON body (by its length) or an event stream's first message. */
	private static JsonNode firstJson(BufferedReader answer) throws java.io.IOException {
		int length = -1;
		for (String line = answer.readLine(); line != null && !line.isEmpty(); line = answer.readLine()) {
			if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
				length = Integer.parseInt(line.substring(15).strip());
			}
		}
		// chunked: each chunk ends with a line break, a JSON body's or an event's
		for (String line = length < 0 ? answer.readLine() : null; line != null; line = answer.readLine()) {
			String text = line.startsWith("data:") ? line.substring(5).strip() : line.strip();
			if (text.startsWith("{")) {
				return JSON.readTree(text);
			}
		}
		assertThat(length).as("the answer ended without a message").isNotNegative();
		char[] body = new char[length];
		for (int read = 0; read < length;) {
			int got = answer.read(body, read, length - read);
			assertThat(got).as("the body ended early").isPositive();
			read += got;
		}
		return JSON.readTree(new String(body));
	}

	/** The URIs of {@code array} that the listen of hold:1..4 and memo://never asked for (other tests' left out). */
	private static List<String> ofThisListen(JsonNode array) {
		return texts(array).stream().filter(uri -> uri.startsWith("hold:") || uri.equals("memo://never")).toList();
	}

	private static List<String> texts(JsonNode array) {
		List<String> texts = new ArrayList<>();
		array.forEach(item -> texts.add(item.asText()));
		return texts;
	}

	private static int port() {
		return ((WebServerApplicationContext) relay).getWebServer().getPort();
	}

}
