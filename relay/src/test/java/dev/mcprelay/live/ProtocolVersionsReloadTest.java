package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.interop.NodePeers;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * A server's {@code protocol-versions} edited in the mounted file of a running relay, in front of real MCP servers of
 * both generations: the TypeScript SDK v2 server that accepts only 2026-07-28 ({@code interop/only-2026-server.mjs})
 * and the Java SDK's, which speaks 2025. A server the bridge learnt to be 2026-only and that a reload pins to
 * 2025-11-25 (moved to the Java SDK's server) is spoken to in 2025 from the next request, and the session the bridge
 * had given a 2025 client ends: its GET stream at once (reason {@code session_ended}, counted), its next request
 * 404 {@code session_ended}. A pin that leaves the server 2026-only keeps bridged sessions running, and a pin of 2025
 * on the 2026-only server relays the next {@code initialize} as the client sent it (the server's refusal handed on,
 * nothing learnt); an invalid pin is refused whole, the running versions serving.
 */
class ProtocolVersionsReloadTest {

	static NodePeers.NodeServer only2026;

	static SdkMcpUpstream sdk;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config(only2026.url(), ""))
		.peer(() -> {
			NodePeers.requireNode();
			NodePeers.installFromLockfile();
			return only2026 = NodePeers.startServer("only-2026-server.mjs");
		})
		.peer(() -> sdk = new SdkMcpUpstream());

	@Test
	void aServerLearntAs2026OnlyAndPinnedTo2025IsSpokenToIn2025FromTheNextRequestAndItsBridgedSessionEnds()
			throws Exception {
		RawHttp http = live.http();
		McpSession bridged = McpSession.open(http, "versioned");
		assertThat(bridged.id()).as("learnt from the server's refusal: the bridge's session").startsWith("mcp-bridge-");
		assertThat(echo(bridged, 2, "before")).isEqualTo("before");
		HttpResponse<InputStream> stream = http.open(http.request("versioned").header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", bridged.id()).header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION).GET());
		assertThat(stream.statusCode()).as("the bridged GET stream: the server's subscriptions/listen").isEqualTo(200);
		CompletableFuture<String> streamed = CompletableFuture.supplyAsync(() -> RawHttp.readAll(stream.body()));
		double ended = live.relay().streamsEnded("versioned");

		live.reload(config(sdk.url("/mcp"), "[\"2025-11-25\"]"), ReloadOutcome.APPLIED);

		assertThat(streamed.get(20, TimeUnit.SECONDS)).as("the bridged session's GET stream ends, cleanly").isNotNull();
		assertThat(live.relay().streamsEnded("versioned")).as("counted").isEqualTo(ended + 1);
		assertThat(live.relay().context().getBean(io.micrometer.core.instrument.MeterRegistry.class)
			.get("mcp.relay.streams.ended").tag("server", "versioned").tag("reason", "session_ended").counter().count())
			.isEqualTo(1);
		HttpResponse<String> after = bridged.post(call(3, "after"));
		assertThat(after.statusCode()).as("the bridged session's next request: %s", after.body()).isEqualTo(404);
		assertThat(RawHttp.json(after.body()).at("/error/data/reason").asText()).isEqualTo("session_ended");

		sdk.clearSeen();
		McpSession direct = McpSession.open(http, "versioned");
		assertThat(direct.id()).as("the server's own session, relayed as the 2025 client speaks")
			.isNotNull()
			.doesNotStartWith("mcp-bridge-");
		assertThat(sdk.seen()).as("the 2025 initialize reached the 2025 server as it was sent")
			.anyMatch(seen -> seen.body().contains("\"initialize\"")
					&& seen.body().contains(McpSession.PROTOCOL_VERSION));
		assertThat(echo(direct, 4, "in 2025")).isEqualTo("in 2025");
	}

	@Test
	void aPinThatLeavesTheServer2026OnlyKeepsBridgedSessionsAndA2025PinIsObeyedFromTheNextInitialize()
			throws Exception {
		RawHttp http = live.http();
		McpSession bridged = McpSession.open(http, "versioned");
		assertThat(bridged.id()).startsWith("mcp-bridge-");

		live.reload(config(only2026.url(), "[\"2026-07-28\"]"), ReloadOutcome.APPLIED);

		assertThat(echo(bridged, 2, "still bridged")).as("the pin leaves the server 2026-only: the session runs on")
			.isEqualTo("still bridged");

		live.reload(config(only2026.url(), "[\"2025-11-25\"]"), ReloadOutcome.APPLIED);

		HttpResponse<String> refused = http.send(http.post("versioned", McpSession.initialize(1)));
		assertThat(refused.statusCode()).as("relayed in 2025 as pinned: the 2026-only server's own refusal, handed on: %s",
				refused.body())
			.isBetween(400, 499);
		assertThat(refused.headers().firstValue("Mcp-Session-Id")).as("no session of the bridge's").isEmpty();
		assertThat(http.send(http.post("versioned", McpSession.initialize(1))).statusCode())
			.as("the pinned versions are not replaced by what the refusal names: still relayed as sent")
			.isBetween(400, 499);
	}

	@Test
	void anInvalidPinIsRefusedWholeAndTheRunningVersionsServe() throws Exception {
		live.reload(config(only2026.url(), "[\"2026-07-28\"]"), ReloadOutcome.APPLIED);
		String running = live.relay().checksum();

		live.reload(config(only2026.url(), "[\"2026-07-28\", \"2027-13-01\"]"), ReloadOutcome.REFUSED);

		assertThat(live.relay().checksum()).as("the running configuration stays").isEqualTo(running);
		McpSession bridged = McpSession.open(live.http(), "versioned");
		assertThat(bridged.id()).as("bridged by the running pin, from the first initialize").startsWith("mcp-bridge-");
		assertThat(echo(bridged, 2, "pinned")).isEqualTo("pinned");
	}

	/**
	 * Calls the {@code echo} tool in {@code session}; the text it answers (the TypeScript server echoes {@code text},
	 * the Java SDK's {@code message}: both are sent).
	 */
	private static String echo(McpSession session, int id, String text) {
		HttpResponse<String> answer = session.post(call(id, text));
		assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
		JsonNode result = RawHttp.messagesOf(answer).get(0);
		return result.at("/result/content/0/text").asText();
	}

	private static String call(int id, String text) {
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
				+ "\"arguments\":{\"text\":\"" + text + "\",\"message\":\"" + text + "\"}}}";
	}

	/** One server, {@code versioned}, at {@code url}, its versions pinned to {@code pinned} (a YAML list) unless empty. */
	static String config(String url, String pinned) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: none\n  servers:\n"
				+ "    versioned:\n      url: " + url + "\n"
				+ (pinned.isEmpty() ? "" : "      protocol-versions: " + pinned + "\n");
	}

}
