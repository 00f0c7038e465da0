package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A server's stream to the client whose upstream has not answered yet when a reload removes the server: a scripted
 * server, {@code held} (tools only), takes the GET and holds its answer back until the test releases it, far longer
 * than the test waits ({@code timeouts.non-streaming: 60s}); beside it the MCP Java SDK's server, {@code alpha}, both
 * members of a virtual server of every server. A client's own GET to {@code held} is answered at once, 404
 * {@code server_removed}; a virtual session's GET to {@code held} (the member stream of its merged GET) ends at once
 * too, while the merged GET runs on with {@code alpha} and is told the tool list changed (only that: {@code held}
 * offers no prompts or resources). Each ending is counted, the upstream's connection is let go, its late answer goes
 * nowhere and {@code held} is never asked again.
 */
class UnansweredStreamsReloadTest {

	static SdkMcpUpstream upstream;

	static ScriptedUpstream held;

	/** Completes when {@code held} may answer the GETs it holds: released after each test. */
	static volatile Sinks.Empty<Void> release = Sinks.empty();

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config(true))
		.peer(() -> upstream = new SdkMcpUpstream())
		.peer(UnansweredStreamsReloadTest::holdingGets);

	@BeforeEach
	void holdTheGets() {
		release = Sinks.empty();
		held.clear();
	}

	@AfterEach
	void releaseTheGets() {
		release.tryEmitEmpty();
	}

	@Test
	void aGetWhoseUpstreamHasNotAnsweredIsAnsweredServerRemovedAtOnceAndTheUpstreamsLateAnswerGoesNowhere()
			throws Exception {
		McpSession session = McpSession.open(live.http(), "held");
		CompletableFuture<HttpResponse<String>> get = CompletableFuture.supplyAsync(() -> live.http()
			.send(live.http().request("held")
				.header("Accept", "text/event-stream")
				.header("Mcp-Session-Id", session.id())
				.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
				.GET()));
		awaitGets(1);
		double ended = streamsEnded("held", "server_removed");
		int closed = held.closedConnections();

		live.reload(config(false), ReloadOutcome.APPLIED);

		HttpResponse<String> answer = get.get(10, TimeUnit.SECONDS);
		assertThat(answer.statusCode()).as(answer.body()).isEqualTo(404);
		assertThat(RawHttp.json(answer.body()).at("/error/data/reason").asText()).isEqualTo("server_removed");
		assertThat(streamsEnded("held", "server_removed")).as("counted").isEqualTo(ended + 1);
		Awaitility.await("the upstream's connection let go").atMost(Duration.ofSeconds(10))
			.until(() -> held.closedConnections() > closed);
		release.tryEmitEmpty();
		assertNeverAskedAgain(1);
	}

	@Test
	void aMemberGetWhoseUpstreamHasNotAnsweredEndsAtOnceAndTheMergedGetRunsOnToldOfTheToolListOnly() throws Exception {
		McpSession session = McpSession.open(live.http(), "all");
		// the members' streams open as the member has the client's notifications/initialized, before the client's GET
		awaitGets(1);
		OpenSse merged = new OpenSse(live.http().open(live.http().request("all")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.GET()));
		double ended = streamsEnded("held", "server_removed");
		int closed = held.closedConnections();
		try {
			live.reload(config(false), ReloadOutcome.APPLIED);

			Awaitility.await("the member's GET ended, counted").atMost(Duration.ofSeconds(10))
				.until(() -> streamsEnded("held", "server_removed") == ended + 1);
			Awaitility.await("the upstream's connection let go").atMost(Duration.ofSeconds(10))
				.until(() -> held.closedConnections() > closed);
			assertThat(merged.next().path("method").asText()).as("the relay tells the open GET")
				.isEqualTo("notifications/tools/list_changed");
			release.tryEmitEmpty();
			upstream.notifyToolsListChanged();
			assertThat(merged.next().path("method").asText())
				.as("the next event is alpha's: no prompts or resources list change, nothing of held's late answer")
				.isEqualTo("notifications/tools/list_changed");
			assertThat(merged.ended()).as("the merged GET runs on").isFalse();
			assertNeverAskedAgain(1);
			assertThat(streamsEnded("held", "server_removed")).as("counted once").isEqualTo(ended + 1);
		}
		finally {
			merged.close();
		}
	}

	/** Waits for {@code held} to have been sent {@code count} GETs. */
	private static void awaitGets(int count) {
		Awaitility.await("held's GET").atMost(Duration.ofSeconds(20)).until(() -> gets() == count);
	}

	/** {@code held} is asked nothing more than its {@code count} GETs, watched for longer than a stream's backoff. */
	private static void assertNeverAskedAgain(int count) {
		int seen = held.seen().size();
		Awaitility.await("held is never asked again").pollDelay(Duration.ofMillis(100))
			.during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5))
			.until(() -> held.seen().size() == seen && gets() == count);
	}

	private static long gets() {
		return held.seen().stream().filter(seen -> seen.method().equals("GET")).count();
	}

	/** {@code mcp_relay_streams_ended_total} of {@code server} for {@code reason}. */
	private static double streamsEnded(String server, String reason) {
		return live.relay().context().getBean(MeterRegistry.class).find("mcp.relay.streams.ended")
			.tag("server", server).tag("reason", reason).counters().stream().mapToDouble(Counter::count).sum();
	}

	/**
	 * A scripted MCP server offering tools only: {@code initialize} answered, notifications taken, and a GET answered
	 * only once {@link #release} completes, with one event.
	 */
	private static ScriptedUpstream holdingGets() {
		held = new ScriptedUpstream();
		held.scriptWithBody((request, response, body) -> {
			if (request.method().name().equals("GET")) {
				return release.asMono().then(Mono.defer(() -> response.status(200)
					.header("Content-Type", "text/event-stream")
					.sendString(Mono.just("id: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":"
							+ "\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"late\"}}\n\n"))
					.then()));
			}
			if (body.contains("\"initialize\"")) {
				return ScriptedUpstream.initializeAnswer(response, body, "held", "h-1");
			}
			return response.status(202).send();
		});
		return held;
	}

	/** alpha, the SDK's server; {@code held} when {@code withHeld}; a virtual server of every server. */
	private static String config(boolean withHeld) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: none\n  servers:\n"
				+ "    alpha:\n      url: " + upstream.url("/mcp") + "\n"
				+ (withHeld ? "    held:\n      url: " + held.url("/mcp")
						+ "\n      timeouts:\n        non-streaming: 60s\n" : "")
				+ "  virtual-servers:\n    all:\n      members: [\"*\"]\n";
	}

}
