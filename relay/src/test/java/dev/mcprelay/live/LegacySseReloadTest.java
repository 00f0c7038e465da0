package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedLegacySseServer;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A legacy HTTP+SSE server ({@code transport: sse}) changed or removed by a reload of a running relay: a call waiting
 * on one of its bridged sessions is answered with the reason the operations page names ({@code session_ended} for a
 * change, {@code server_removed} for a removal), a later request on the old session with 404 {@code session_ended},
 * and the bridged-sessions gauge follows the new bridge (registered once). The scripted legacy server holds the call
 * unanswered ({@code IGNORE}), which no real server does on demand.
 */
class LegacySseReloadTest {

	static ScriptedLegacySseServer legacy;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config("first"))
		.peer(() -> legacy = new ScriptedLegacySseServer());

	@BeforeEach
	void legacyServerAsAtTheStart() {
		legacy.reset();
	}

	@Test
	void aChangedServersWaitingCallAndItsOldSessionAreToldTheSessionEndedAndTheGaugeFollowsTheNewBridge()
			throws Exception {
		int mark = CapturedLogs.all().size();
		McpSession session = McpSession.open(live.http(), "legacy");
		CompletableFuture<HttpResponse<String>> waiting = waitingCall(session, 5);

		live.reload(config("second"), ReloadOutcome.APPLIED);

		HttpResponse<String> answered = waiting.get();
		assertThat(reason(answered)).as(answered.body()).isEqualTo("session_ended");
		HttpResponse<String> later = session.post(RawHttp.toolsCall(6, "echo"));
		assertThat(later.statusCode()).isEqualTo(404);
		assertThat(reason(later)).as("a request on the old session").isEqualTo("session_ended");

		McpSession.open(live.http(), "legacy");
		assertThat(bridged()).as("the gauge follows the new bridge").isEqualTo(1);
		assertThat(CapturedLogs.since(mark)).noneMatch(line -> line.contains("already registered"));
	}

	@Test
	void aRemovedServersWaitingCallIsToldTheServerWasRemoved() throws Exception {
		McpSession session = McpSession.open(live.http(), "legacy");
		CompletableFuture<HttpResponse<String>> waiting = waitingCall(session, 7);

		live.reload(config(null), ReloadOutcome.APPLIED);

		HttpResponse<String> answered = waiting.get();
		assertThat(reason(answered)).as(answered.body()).isEqualTo("server_removed");
	}

	/** A {@code tools/call} the legacy server accepts and never answers, once it reached the server. */
	private static CompletableFuture<HttpResponse<String>> waitingCall(McpSession session, int id) {
		legacy.onRequest("tools/call", ScriptedLegacySseServer.Reaction.IGNORE);
		CompletableFuture<HttpResponse<String>> waiting = CompletableFuture
			.supplyAsync(() -> session.post(RawHttp.toolsCall(id, "echo")));
		Awaitility.await("the call reached the legacy server").atMost(Duration.ofSeconds(20))
			.until(() -> legacy.lastSession().received().stream().anyMatch(body -> body.contains("tools/call")));
		return waiting;
	}

	private static String reason(HttpResponse<String> answer) {
		return RawHttp.messagesOf(answer).get(0).at("/error/data/reason").asText();
	}

	private static double bridged() {
		return live.relay().context().getBean(MeterRegistry.class).get("mcp.relay.sessions.bridged").tag("server", "legacy")
			.gauge().value();
	}

	/** The legacy server, sent header {@code X-Version: version}; none when {@code version} is null. */
	static String config(String version) {
		String servers = version == null ? "    other:\n      url: http://127.0.0.1:9/mcp\n"
				: "    legacy:\n      url: " + legacy.url() + "\n      transport: sse\n      headers:\n"
						+ "        - { name: X-Version, value: " + version + " }\n";
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: none\n  servers:\n" + servers;
	}

}
