package dev.mcprelay.live;

import static dev.mcprelay.live.CatchingUpReplicaReloadTest.TOOLS_LIST;
import static dev.mcprelay.live.CatchingUpReplicaReloadTest.servedBehind;
import static dev.mcprelay.live.CatchingUpReplicaReloadTest.config;
import static dev.mcprelay.live.CatchingUpReplicaReloadTest.inSession;
import static dev.mcprelay.live.CatchingUpReplicaReloadTest.progressCall;
import static dev.mcprelay.live.CatchingUpReplicaReloadTest.track;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.live.CatchingUpReplicaReloadTest.ServedBehind;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A session the replica ahead ended while the replica behind served it (reviews 44j F2, 44n N-L1), two relays on
 * mounted files over one real Redis, the MCP Java SDK's servers as members ({@code alpha}'s {@code progress} holds a
 * call's stream open, 10 s at most): the session is opened on the replica ahead under settings B ({@code [alpha,
 * beta]}), the replica behind (which runs A, {@code [alpha]}) serves it, joins alpha again (alpha had forgotten it),
 * and holds its merged GET stream and a call streaming through alpha; the replica ahead moves on to C ({@code [alpha,
 * beta, gamma]}), which ends the session (the store marks it ended). The replica behind then applies C, never having
 * run B: the terms cannot tell it whether B is newer than C, but the store says the session ended, and its GET stream
 * and its call both end at once on that one verdict, the call with a JSON-RPC error {@code session_ended} (not its
 * result), each counted once in {@code mcp_relay_streams_ended_total}; the member session it joined is sent its DELETE
 * there at once (not at the session's next request); and the session's next request is answered 404
 * {@code session_ended} on either replica, as often as it is asked.
 */
class SessionEndedElsewhereReloadTest {

	private static final String A = "    hub:\n      members: [alpha]\n";

	private static final String B = "    hub:\n      members: [alpha, beta]\n";

	private static final String C = "    hub:\n      members: [alpha, beta, gamma]\n";

	@Test
	void theReplicaCatchingUpEndsTheGetStreamAndTheCallsOfASessionTheReplicaAheadEndedMeanwhile(@TempDir Path root)
			throws Exception {
		List<OpenSse> opened = new ArrayList<>();
		try (SdkMcpUpstream alpha = new SdkMcpUpstream(); SdkMcpUpstream beta = new SdkMcpUpstream();
				SdkMcpUpstream gamma = new SdkMcpUpstream(); RedisServerProcess redis = RedisServerProcess.start()) {
			String[] shared = redis.relayArguments().toArray(String[]::new);
			try (MountedRelay ahead = MountedRelay.start(Files.createDirectory(root.resolve("ahead")),
					config(alpha, beta, gamma, A), shared);
					MountedRelay behind = MountedRelay.start(Files.createDirectory(root.resolve("behind")),
							config(alpha, beta, gamma, A), shared)) {
				ahead.awaitOutcome(() -> ahead.swap(config(alpha, beta, gamma, B)), ReloadOutcome.APPLIED);
				ServedBehind served = servedBehind(ahead, behind, alpha, opened);
				String sessionB = served.id();
				String joinedBehind = served.joinedBehind();
				OpenSse get = served.get();
				OpenSse call = track(opened, progressCall(behind, sessionB, 21, "alpha_progress"));

				ahead.awaitOutcome(() -> ahead.swap(config(alpha, beta, gamma, C)), ReloadOutcome.APPLIED);
				assertThat(call.ended()).as("the call runs on behind until that replica catches up").isFalse();
				double endedBefore = sessionEndedStreams(behind);
				behind.awaitOutcome(() -> behind.swap(config(alpha, beta, gamma, C)), ReloadOutcome.APPLIED);
				long applied = System.nanoTime();

				List<JsonNode> callEnd = call.awaitEnd();
				long callEndedMillis = (System.nanoTime() - applied) / 1_000_000;
				assertThat(callEnd).as("the call through alpha ends with the session, not with its result (%d ms "
						+ "after the reload applied): %s", callEndedMillis, callEnd).last().satisfies(answer -> {
							assertThat(answer.path("id").asInt()).isEqualTo(21);
							assertThat(answer.at("/error/data/reason").asText()).isEqualTo("session_ended");
						});
				List<JsonNode> carried = get.awaitEnd();
				assertThat(carried).as("the GET stream ends, and is not told to list again on settings its session "
						+ "never had").extracting(event -> event.path("method").asText())
					.containsExactly("notifications/tools/list_changed");
				assertThat(sessionEndedStreams(behind)).as("the GET stream and the call, each counted once")
					.isEqualTo(endedBefore + 2);
				System.out.println("N-L1: the call ended " + callEndedMillis + " ms after the reload applied behind");
				Awaitility.await("the replica behind ends the member session it joined, before any request of the session")
					.atMost(Duration.ofSeconds(30))
					.until(() -> alpha.seen().stream().anyMatch(seen -> "DELETE".equals(seen.method())
							&& joinedBehind.equals(seen.headers().getFirst("Mcp-Session-Id"))));

				for (MountedRelay relay : List.of(ahead, behind, ahead, behind)) {
					HttpResponse<String> next = relay.http().send(inSession(relay, sessionB, TOOLS_LIST));
					assertThat(next.statusCode()).as(next.body()).isEqualTo(404);
					assertThat(RawHttp.json(next.body()).at("/error/data/reason").asText())
						.as("on %s: %s", relay == ahead ? "the replica ahead" : "the replica behind", next.body())
						.isEqualTo("session_ended");
				}
			}
			finally {
				alpha.releaseProgress();
				for (OpenSse stream : opened) {
					stream.close();
				}
			}
		}
	}

	/** {@code mcp_relay_streams_ended_total} of {@code hub} on {@code relay}, reason {@code session_ended}. */
	private static double sessionEndedStreams(MountedRelay relay) {
		return relay.context().getBean(MeterRegistry.class).find("mcp.relay.streams.ended").tag("server", "hub")
			.tag("reason", "session_ended").counters().stream().mapToDouble(Counter::count).sum();
	}

}
