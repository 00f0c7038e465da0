package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * A GET stream opened while no policy governed its server, in front of a real MCP server (the SDK's), outlives a reload
 * that adds one: what the server says on it later still counts. A tool the server republishes as no longer read-only,
 * saying {@code list_changed} on that stream, is decided from its new definition by a policy that reads annotations.
 */
class StreamsOpenedBeforeAPolicyReloadTest {

	@TempDir
	static Path mount;

	static SdkMcpUpstream upstream;

	static MountedRelay relay;

	static RawHttp http;

	@BeforeAll
	static void start() throws Exception {
		upstream = new SdkMcpUpstream();
		relay = MountedRelay.start(mount, config(""));
		http = relay.http();
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (upstream != null) {
			upstream.close();
		}
	}

	@BeforeEach
	void backToNoPolicies() throws Exception {
		relay.restore(config(""));
		upstream.republish("secret_audit", true);
		upstream.clearSeen();
	}

	@Test
	void aToolRepublishedOnAGetOpenedBeforeAPolicyWasAddedIsDecidedFromItsNewDefinition() throws Exception {
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

		relay.awaitOutcome(() -> relay.swap(config(READ_ONLY)), ReloadOutcome.APPLIED);
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
