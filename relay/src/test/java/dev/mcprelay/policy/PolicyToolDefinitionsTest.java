package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A rule that reads a tool's annotations decides a call from the definition the server published, never from
 * anything the caller sends: the latest list the relay saw wins; a server saying its tools changed makes the relay read
 * them again before the next call; a tool the client never listed is looked up by listing the server; a tool the server
 * does not list is refused (fail closed). The server here is scripted: its tool {@code deploy} says it is read-only,
 * until the test says otherwise. A {@code list_changed} is heard once, on a POST stream as on a GET stream: the relay
 * has one listener of it ({@code ListChangedWatch}).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyToolDefinitionsTest {

	static final ScriptedUpstream UPSTREAM = new ScriptedUpstream();

	static final AtomicBoolean READ_ONLY = new AtomicBoolean(true);

	/** A second entry named {@code deploy}, listed after the first, saying the opposite; {@code null}: none. */
	static final java.util.concurrent.atomic.AtomicReference<Boolean> SECOND_DEPLOY_READ_ONLY =
			new java.util.concurrent.atomic.AtomicReference<>();

	static volatile Sinks.Many<String> events = Sinks.many().multicast().directBestEffort();

	@LocalServerPort
	int port;

	@Autowired
	PublishedCatalogues catalogues;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "none");
		registry.add("mcp-relay.servers.scripted.url", () -> UPSTREAM.url("/mcp"));
		registry.add("mcp-relay.policies[0].name", () -> "read-only");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "scripted");
		registry.add("mcp-relay.policies[0].allow",
				() -> "mcp.method != \"tools/call\" || mcp.tool.annotations.?readOnlyHint.orValue(false)");
		registry.add("mcp-relay.servers.audited.url", () -> UPSTREAM.url("/mcp"));
		registry.add("mcp-relay.policies[1].name", () -> "try-read-only");
		registry.add("mcp-relay.policies[1].servers[0]", () -> "audited");
		registry.add("mcp-relay.policies[1].deny",
				() -> "mcp.method == \"tools/call\" && !mcp.tool.annotations.?readOnlyHint.orValue(false)");
		registry.add("mcp-relay.policies[1].enforce", () -> "false");
	}

	@BeforeEach
	void script() {
		READ_ONLY.set(true);
		SECOND_DEPLOY_READ_ONLY.set(null);
		events = Sinks.many().multicast().directBestEffort();
		UPSTREAM.clear();
		UPSTREAM.scriptWithBody((request, response, body) -> {
			if (request.method().name().equals("GET")) {
				return response.header("Content-Type", "text/event-stream")
					.sendString(events.asFlux().map(data -> "data: " + data + "\n\n"));
			}
			JsonNode message = RawHttp.json(body);
			String id = message.path("id").toString();
			if (message.path("method").asText().equals("ping")) {
				// a list_changed on the ping's stream, before its answer
				return response.header("Content-Type", "text/event-stream").sendString(Flux.just(
						"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}",
						"{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{}}")
					.map(event -> "data: " + event + "\n\n"));
			}
			String result = switch (message.path("method").asText()) {
				case "tools/list" -> "{\"tools\":[{\"name\":\"deploy\",\"inputSchema\":{\"type\":\"object\"},"
						+ "\"annotations\":{\"readOnlyHint\":" + READ_ONLY.get() + "}},{\"name\":\"other\","
						+ "\"inputSchema\":{\"type\":\"object\"},\"annotations\":{\"readOnlyHint\":true}}"
						+ (SECOND_DEPLOY_READ_ONLY.get() == null ? "" : ",{\"name\":\"deploy\",\"inputSchema\":"
								+ "{\"type\":\"object\"},\"annotations\":{\"readOnlyHint\":"
								+ SECOND_DEPLOY_READ_ONLY.get() + "}}")
						+ "]}";
				case "tools/call" -> "{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}";
				default -> "{}";
			};
			return response.header("Content-Type", "application/json")
				.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + result + "}"));
		});
	}

	@AfterAll
	static void stop() {
		UPSTREAM.close();
	}

	@Test
	void theLatestListTheRelaySawDecides() {
		assertThat(listed()).contains("deploy");
		assertThat(call("deploy").has("result")).isTrue();

		READ_ONLY.set(false);
		assertThat(listed()).doesNotContain("deploy");
		UPSTREAM.clear();
		assertThat(call("deploy").at("/error/message").asText()).isEqualTo("Unknown tool: deploy");
		assertThat(callsSeen()).isZero();
	}

	@Test
	void aServerSayingItsToolsChangedIsReadAgainBeforeTheNextCall() throws Exception {
		assertThat(listed()).contains("deploy");
		RawHttp http = new RawHttp(port);
		HttpResponse<InputStream> stream = http.open(http.request("scripted").header("Accept", "text/event-stream").GET());
		assertThat(stream.statusCode()).isEqualTo(200);

		READ_ONLY.set(false);
		// the client's 200 does not say the upstream's stream is taking events yet: a best-effort sink drops them until
		await().atMost(Duration.ofSeconds(30)).until(() -> events.currentSubscriberCount() > 0);
		events.tryEmitNext("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
		assertThat(readEvent(stream.body())).contains("list_changed");

		UPSTREAM.clear();
		assertThat(call("deploy").at("/error/message").asText()).as("decided from what the server says now")
			.isEqualTo("Unknown tool: deploy");
		assertThat(callsSeen()).isZero();
		assertThat(UPSTREAM.seen()).as("the relay listed the tools itself")
			.anyMatch(seen -> seen.body().contains("tools/list"));
		stream.body().close();
	}

	/**
	 * A list_changed on a POST stream and one on a GET stream each make the catalogues forget once (cold review L,
	 * finding 3: the policy interceptor forgot them too, a second listener beside the relay's own).
	 */
	@Test
	void aListChangedIsHeardOnceOnAPostStreamAndOnceOnAGetStream() throws Exception {
		long before = catalogues.changesHeard("scripted", "tools/list");
		RawHttp http = new RawHttp(port);
		String pinged = http.send(http.post("scripted", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}"))
			.body();
		assertThat(pinged).contains("list_changed").contains("\"id\":7");
		assertThat(catalogues.changesHeard("scripted", "tools/list")).as("on the POST stream").isEqualTo(before + 1);

		HttpResponse<InputStream> stream = http
			.open(http.request("scripted").header("Accept", "text/event-stream").GET());
		assertThat(stream.statusCode()).isEqualTo(200);
		try (InputStream body = stream.body()) {
			await().atMost(Duration.ofSeconds(30)).until(() -> events.currentSubscriberCount() > 0);
			events.tryEmitNext("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
			assertThat(readEvent(body)).contains("list_changed");
			assertThat(catalogues.changesHeard("scripted", "tools/list")).as("on the GET stream").isEqualTo(before + 2);
		}
	}

	@Test
	void aToolTheServerDoesNotListIsRefused() {
		UPSTREAM.clear();
		assertThat(call("ghost").at("/error/message").asText()).isEqualTo("Unknown tool: ghost");
		assertThat(call("other").has("result")).as("one the client never listed is looked up").isTrue();
		assertThat(UPSTREAM.seen()).noneMatch(seen -> seen.body().contains("\"ghost\""));
	}

	/**
	 * Review 43e F3: a server that lists {@code deploy} twice, read-only and not: the first entry is the one listed,
	 * kept and decided from, in either order, so what the caller sees listed is what it may call (it was listed from
	 * one entry and decided from the last).
	 */
	@Test
	void aToolListedTwiceIsListedAndDecidedByItsFirstEntry() {
		SECOND_DEPLOY_READ_ONLY.set(false);
		assertThat(listed()).as("read-only first").containsOnlyOnce("deploy");
		assertThat(call("deploy").has("result")).as("decided from the read-only first entry, as listed").isTrue();

		READ_ONLY.set(false);
		SECOND_DEPLOY_READ_ONLY.set(true);
		assertThat(listed()).as("destructive first").doesNotContain("deploy");
		UPSTREAM.clear();
		assertThat(call("deploy").at("/error/message").asText()).as("decided from the first entry, as listed")
			.isEqualTo("Unknown tool: deploy");
		assertThat(callsSeen()).isZero();
	}

	/** Review 43f F-F: where only an audit-mode policy governs, the list is left as the server sent it, copies too. */
	@Test
	void anAuditModePolicyAloneLeavesAToolListedTwiceAsListed() {
		SECOND_DEPLOY_READ_ONLY.set(false);
		assertThat(listed("audited").stream().filter("deploy"::equals)).as("both copies").hasSize(2);
		assertThat(listed()).as("an enforced policy's server: the first alone").containsOnlyOnce("deploy");
	}

	private List<String> listed() {
		return listed("scripted");
	}

	private List<String> listed(String server) {
		RawHttp http = new RawHttp(port);
		JsonNode answer = RawHttp.json(http.send(http.post(server,
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}")).body());
		return answer.at("/result/tools").findValuesAsText("name");
	}

	private JsonNode call(String tool) {
		RawHttp http = new RawHttp(port);
		return RawHttp.json(http.send(http.post("scripted", RawHttp.toolsCall(2, tool))).body());
	}

	private long callsSeen() {
		return UPSTREAM.seen().stream().filter(seen -> seen.body().contains("tools/call")).count();
	}

	private static String readEvent(InputStream in) throws Exception {
		StringBuilder event = new StringBuilder();
		while (!event.toString().contains("\n\n")) {
			int b = in.read();
			if (b < 0) {
				break;
			}
			event.append((char) b);
		}
		return event.toString();
	}

}
