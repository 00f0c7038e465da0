package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Publisher;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A GET stream opened while no policy governed its server, in front of a real MCP server (the SDK's), outlives a reload
 * that adds one: what the server says on it later still counts, and is decided by the policies in force when it says
 * it. A tool the server republishes as no longer read-only, saying {@code list_changed} on that stream, is decided from
 * its new definition by a policy that reads annotations; an update of a resource the new policy denies never reaches
 * the client on that stream, while an update of one it allows does. A list_changed is heard when the server writes the
 * notification's method with JSON escapes too (a scripted server: no SDK writes them).
 */
class StreamsOpenedBeforeAPolicyReloadTest {

	static SdkMcpUpstream upstream;

	/** For what no SDK server sends: its tool {@code deploy} is read-only until {@link #DEPLOY_READ_ONLY} says not. */
	static ScriptedUpstream scripted;

	static final AtomicBoolean DEPLOY_READ_ONLY = new AtomicBoolean(true);

	static final AtomicInteger SCRIPTED_SESSIONS = new AtomicInteger();

	/** What the scripted server sends on the GET streams opened from now on. */
	static volatile Sinks.Many<String> scriptedEvents = Sinks.many().multicast().directBestEffort();

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config(""))
		.peer(() -> upstream = new SdkMcpUpstream())
		.peer(() -> {
			scripted = new ScriptedUpstream();
			scripted.scriptWithBody(StreamsOpenedBeforeAPolicyReloadTest::scriptedAnswer);
			return scripted;
		});

	@BeforeEach
	void republishedAsAtTheStart() throws Exception {
		upstream.republish("secret_audit", true);
		upstream.clearSeen();
		DEPLOY_READ_ONLY.set(true);
		scriptedEvents = Sinks.many().multicast().directBestEffort();
		scripted.clear();
	}

	@Test
	void aToolRepublishedOnAGetOpenedBeforeAPolicyWasAddedIsDecidedFromItsNewDefinition() throws Exception {
		RawHttp http = live.http();
		McpSession session = McpSession.open(http, "alpha");
		// the SDK's server sends a GET's headers with its first event: the GET is opened aside, and is under way at
		// the upstream (its snapshot, without the policy, taken at its first byte) before the reload
		CompletableFuture<HttpResponse<InputStream>> get = CompletableFuture.supplyAsync(() -> http.open(
				http.request("alpha")
					.header("Accept", "text/event-stream")
					.header("Mcp-Session-Id", session.id())
					.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
					.GET()));
		await("the GET at the upstream").until(() -> upstream.seen().stream()
			.anyMatch(seen -> seen.method().equals("GET") && seen.path().equals("/mcp")));

		live.reload(config(READ_ONLY), ReloadOutcome.APPLIED);
		assertThat(call(session, 3, "secret_audit").has("result")).as("read-only as published: allowed").isTrue();

		// the server republishes it as not read-only and says list_changed on the GET (again until the GET is
		// listening at the server, which drops what it has no stream for)
		await("list_changed on the GET").until(() -> {
			upstream.republish("secret_audit", false);
			return get.isDone();
		});
		try (InputStream body = get.get().body()) {
			assertThat(get.get().statusCode()).isEqualTo(200);
			assertThat(firstLineWith(body, "notifications/tools/list_changed")).as("the client heard it").isNotNull();

			JsonNode refused = call(session, 4, "secret_audit");
			assertThat(refused.has("error")).as("decided from the republished definition: %s", refused).isTrue();
		}
	}

	@Test
	void aResourceUpdateOnAGetOpenedBeforeADenyOfItNeverReachesTheClientWhileAnAllowedOnesDoes() throws Exception {
		RawHttp http = live.http();
		McpSession session = McpSession.open(http, "alpha");
		for (String uri : List.of("memo://one", "memo://two")) {
			JsonNode subscribed = RawHttp.messagesOf(session.post(
					"{\"jsonrpc\":\"2.0\",\"id\":\"" + uri + "\",\"method\":\"resources/subscribe\",\"params\":{\"uri\":\""
							+ uri + "\"}}")).get(0);
			assertThat(subscribed.has("result")).as("subscribed to %s: %s", uri, subscribed).isTrue();
		}
		// the GET is opened aside (the SDK's server sends its headers with its first event) and is the session's
		// listening stream at the server, on its snapshot without the policy, before the reload
		int served = upstream.getsServed();
		CompletableFuture<HttpResponse<InputStream>> get = CompletableFuture.supplyAsync(() -> http.open(
				http.request("alpha")
					.header("Accept", "text/event-stream")
					.header("Mcp-Session-Id", session.id())
					.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
					.GET()));
		await("the GET listening at the server").until(() -> upstream.getsServed() > served);

		live.reload(config(NO_MEMO_TWO), ReloadOutcome.APPLIED);

		// in this order on the one stream: the denied resource's update first, then the allowed one's
		upstream.notifyResourceUpdated("memo://two");
		upstream.notifyResourceUpdated("memo://one");
		try (InputStream body = get.get(20, TimeUnit.SECONDS).body()) {
			assertThat(get.get().statusCode()).isEqualTo(200);
			List<String> updates = linesUpTo(body, "memo://one").stream()
				.filter(line -> line.contains("notifications/resources/updated"))
				.toList();
			assertThat(updates).as("the allowed resource's update reaches the client, the denied one's never does")
				.singleElement()
				.asString()
				.contains("memo://one");
		}
	}

	/** A policy that lets no caller read {@code memo://two}, so that none hears of it either. */
	private static final String NO_MEMO_TWO = "  policies:\n    - name: no-memo-two\n      servers: [alpha]\n"
			+ "      deny: 'mcp.method == \"resources/read\" && mcp.resource.uri == \"memo://two\"'\n";

	/** Reads {@code body} line by line up to the first that holds {@code text}: every line read, that one last. */
	private static List<String> linesUpTo(InputStream body, String text) throws IOException {
		BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
		List<String> read = new ArrayList<>();
		for (String line = lines.readLine(); line != null; line = lines.readLine()) {
			read.add(line);
			if (line.contains(text)) {
				return read;
			}
		}
		throw new AssertionError("the stream ended before a line with " + text + ": " + read);
	}

	/**
	 * The same on a server that writes the notification's method with JSON escapes, legal JSON for the same string
	 * (cold review L, finding 1: the relay's byte check looked for {@code list_changed} as written, missed
	 * <code>list&#92;u005fchanged</code>, and the call ran from the stale definition); and, as a control, as it is.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "notifications/tools/list_changed", "notifications/tools/list\\u005fchanged",
			"notifications/tools/\\u006cist_changed", "\\u006eotifications\\/tools\\/list_c\\u0068anged" })
	void aListChangedInAnyJsonSpellingOnAGetOpenedBeforeAPolicyWasAddedIsHeard(String method) throws Exception {
		RawHttp http = live.http();
		McpSession session = McpSession.open(http, "scripted");
		HttpResponse<InputStream> get = http.open(http.request("scripted")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.GET());
		assertThat(get.statusCode()).isEqualTo(200);
		try (InputStream body = get.body()) {
			await("the GET at the upstream").until(() -> scriptedEvents.currentSubscriberCount() > 0);

			live.reload(config(SCRIPTED_READ_ONLY), ReloadOutcome.APPLIED);
			assertThat(call(session, 3, "deploy").has("result")).as("read-only as published: allowed").isTrue();

			DEPLOY_READ_ONLY.set(false);
			scriptedEvents.tryEmitNext("{\"jsonrpc\":\"2.0\",\"method\":\"" + method + "\"}");
			assertThat(firstLineWith(body, "\"method\"")).as("the client heard it").contains(method);

			scripted.clear();
			JsonNode refused = call(session, 4, "deploy");
			assertThat(refused.path("error").path("message").asText()).as("decided from the new definition: %s",
					refused).isEqualTo("Unknown tool: deploy");
			assertThat(scripted.seen()).as("the relay listed the tools again, and the call did not go upstream")
				.anyMatch(seen -> seen.body().contains("\"tools/list\""))
				.noneMatch(seen -> seen.body().contains("\"tools/call\""));
		}
	}

	private static final String SCRIPTED_READ_ONLY = "  policies:\n    - name: read-only\n      servers: [scripted]\n"
			+ "      deny: 'mcp.method == \"tools/call\" && !mcp.tool.annotations.?readOnlyHint.orValue(false)'\n";

	/**
	 * The scripted server: a session on {@code initialize}, {@link #scriptedEvents} on a GET, the tool {@code deploy}
	 * as {@link #DEPLOY_READ_ONLY} says, each call answered; every other message accepted.
	 */
	private static Publisher<Void> scriptedAnswer(HttpServerRequest request, HttpServerResponse response,
			String body) {
		if (request.method().name().equals("GET")) {
			return response.header("Content-Type", "text/event-stream")
				.sendString(Flux.concat(Mono.just(": open\n\n"), scriptedEvents.asFlux().map(data -> "data: " + data
						+ "\n\n")));
		}
		JsonNode message = body.isEmpty() ? null : RawHttp.json(body);
		if (message == null || !message.has("id") || !message.has("method")) {
			return response.status(202).send();
		}
		String method = message.path("method").asText();
		if (method.equals("initialize")) {
			return ScriptedUpstream.initializeAnswer(response, body, "scripted",
					"scripted-" + SCRIPTED_SESSIONS.incrementAndGet());
		}
		String result = switch (method) {
			case "tools/list" -> "{\"tools\":[{\"name\":\"deploy\",\"inputSchema\":{\"type\":\"object\"},"
					+ "\"annotations\":{\"readOnlyHint\":" + DEPLOY_READ_ONLY.get() + "}}]}";
			case "tools/call" -> "{\"content\":[{\"type\":\"text\",\"text\":\"deployed\"}]}";
			default -> "{}";
		};
		return response.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":" + message.get("id") + ",\"result\":" + result + "}"));
	}

	private static final String READ_ONLY = "  policies:\n    - name: read-only\n      servers: [alpha]\n"
			+ "      deny: 'mcp.method == \"tools/call\" && !mcp.tool.annotations.?readOnlyHint.orValue(false)'\n";

	private static JsonNode call(McpSession session, int id, String tool) {
		return RawHttp.messagesOf(session.post(RawHttp.toolsCall(id, tool))).get(0);
	}

	/** Reads {@code body} line by line up to the first that holds {@code text}: that line, or null at its end. */
	private static String firstLineWith(InputStream body, String text) throws IOException {
		BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
		for (String line = lines.readLine(); line != null; line = lines.readLine()) {
			if (line.contains(text)) {
				return line;
			}
		}
		return null;
	}

	/** alpha (the SDK's Streamable HTTP server), scripted, then {@code policies}. */
	static String config(String policies) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: none\n  servers:\n"
				+ "    alpha:\n      url: " + upstream.url("/mcp") + "\n    scripted:\n      url: "
				+ scripted.url("/mcp") + "\n" + policies;
	}

}
