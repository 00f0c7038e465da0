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

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * A GET stream opened while no policy governed its server, in front of a real MCP server (the SDK's), outlives a reload
 * that adds one: what the server says on it later still counts, and is decided by the policies in force when it says
 * it. A tool the server republishes as no longer read-only, saying {@code list_changed} on that stream, is decided from
 * its new definition by a policy that reads annotations; an update of a resource the new policy denies never reaches
 * the client on that stream, while an update of one it allows does.
 */
class StreamsOpenedBeforeAPolicyReloadTest {

	static SdkMcpUpstream upstream;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config(""))
		.peer(() -> upstream = new SdkMcpUpstream());

	@BeforeEach
	void republishedAsAtTheStart() throws Exception {
		upstream.republish("secret_audit", true);
		upstream.clearSeen();
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

	/** alpha (the SDK's Streamable HTTP server), then {@code policies}. */
	static String config(String policies) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: none\n  servers:\n"
				+ "    alpha:\n      url: " + upstream.url("/mcp") + "\n" + policies;
	}

}
