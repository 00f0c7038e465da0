package dev.mcprelay.live;

import static dev.mcprelay.live.CatchingUpReplicaReloadTest.TOOLS_LIST;
import static dev.mcprelay.live.CatchingUpReplicaReloadTest.servedBehind;
import static dev.mcprelay.live.CatchingUpReplicaReloadTest.config;
import static dev.mcprelay.live.CatchingUpReplicaReloadTest.inSession;
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

import dev.mcprelay.live.CatchingUpReplicaReloadTest.ServedBehind;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * Review 44q Q-L2, {@link SessionEndedElsewhereReloadTest} in the other order: the replica behind applies the new
 * settings C FIRST, never having run B, so the session (opened ahead under B) carries on there by the store's word; the
 * replica ahead then moves from B to C, which ends the session (the store marks it ended). No reload on the replica
 * behind ends anything now, and no request of the session comes: its merged GET stream (reading alpha through a member
 * session it joined itself) ends at the next tick of its check of sessions ({@link OrphanedMemberSessions}: every
 * session with a merged GET stream here is asked whether it is still live, and a session marked ended is not; a call
 * streaming through a member is not ended so, review 44s S-L1), and the member session it joined is sent its
 * DELETE. The session's next request is answered {@code session_ended}, which shows the end came from the mark, not
 * from the session expiring ({@code idle-timeout} 40 s, a check every 20 s; an expired session is answered as
 * unknown). Before, the check asked only whether the store held the session, true for one kept marked: the stream ran
 * on until the session expired.
 */
class SessionEndedAfterTheCatchUpTest {

	private static final String A = "    hub:\n      members: [alpha]\n";

	private static final String B = "    hub:\n      members: [alpha, beta]\n";

	private static final String C = "    hub:\n      members: [alpha, beta, gamma]\n";

	@Test
	void theReplicaThatCaughtUpFirstEndsTheStreamsOfASessionTheOtherEndedAfter(@TempDir Path root) throws Exception {
		List<OpenSse> opened = new ArrayList<>();
		try (SdkMcpUpstream alpha = new SdkMcpUpstream(); SdkMcpUpstream beta = new SdkMcpUpstream();
				SdkMcpUpstream gamma = new SdkMcpUpstream(); RedisServerProcess redis = RedisServerProcess.start()) {
			String[] shared = redis.relayArguments().toArray(String[]::new);
			try (MountedRelay ahead = MountedRelay.start(Files.createDirectory(root.resolve("ahead")),
					settings(alpha, beta, gamma, A), shared);
					MountedRelay behind = MountedRelay.start(Files.createDirectory(root.resolve("behind")),
							settings(alpha, beta, gamma, A), shared)) {
				ahead.awaitOutcome(() -> ahead.swap(settings(alpha, beta, gamma, B)), ReloadOutcome.APPLIED);
				ServedBehind served = servedBehind(ahead, behind, alpha, opened);
				String sessionB = served.id();
				OpenSse get = served.get();

				behind.awaitOutcome(() -> behind.swap(settings(alpha, beta, gamma, C)), ReloadOutcome.APPLIED);
				assertThat(get.ended()).as("the session carries on behind: the store holds it live").isFalse();
				// the session's time in the store starts again here, after the last request behind
				HttpResponse<String> touched = ahead.http().send(inSession(ahead, sessionB, TOOLS_LIST));
				assertThat(touched.statusCode()).as(touched.body()).isEqualTo(200);
				ahead.awaitOutcome(() -> ahead.swap(settings(alpha, beta, gamma, C)), ReloadOutcome.APPLIED);

				Awaitility.await("the GET stream behind ends at the next check").atMost(Duration.ofSeconds(45))
					.until(get::ended);
				get.awaitEnd();
				Awaitility.await("the member session joined behind is sent its DELETE").atMost(Duration.ofSeconds(30))
					.until(() -> alpha.seen().stream().anyMatch(seen -> "DELETE".equals(seen.method())
							&& served.joinedBehind().equals(seen.headers().getFirst("Mcp-Session-Id"))));
				HttpResponse<String> next = behind.http().send(inSession(behind, sessionB, TOOLS_LIST));
				assertThat(next.statusCode()).as(next.body()).isEqualTo(404);
				assertThat(RawHttp.json(next.body()).at("/error/data/reason").asText())
					.as("ended by the mark, not expired: %s", next.body())
					.isEqualTo("session_ended");
			}
			finally {
				for (OpenSse stream : opened) {
					stream.close();
				}
			}
		}
	}

	/** {@link CatchingUpReplicaReloadTest#config}, with sessions idle 40 s at most: a check every 20 s. */
	private static String settings(SdkMcpUpstream alpha, SdkMcpUpstream beta, SdkMcpUpstream gamma, String hub) {
		String config = config(alpha, beta, gamma, hub);
		assertThat(config).contains("    store: redis\n");
		return config.replace("    store: redis\n", "    store: redis\n    idle-timeout: 40s\n");
	}

}
