package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * Review 46h, N2: one 404 to a listen's GET (a proxy or a redeploy in front of the server, for a moment) marked the
 * session streamless for its whole life, every later listen refused with no GET sent; and for a server that keeps no
 * sessions the mark was one for all its clients, so one client's 404 refused every other client's listens. Now a mark
 * lasts {@link StreamlessSessions#LOOK_AGAIN} and is keyed, for a server without sessions, by the client. The clock is
 * the test's: no waiting.
 */
class StreamlessSessionsTest {

	private final AtomicLong now = new AtomicLong(1_000_000_000L);

	private final StreamlessSessions streamless = new StreamlessSessions(now::get);

	@Test
	void aMarkIsForgottenAfterItsLifetimeAndTheNextListenLooksAgain() {
		UpstreamSession session = session("s-1");
		streamless.remember(session, "alice");
		assertThat(streamless.offersNone(session, "alice")).as("refused at once, just after").isTrue();
		assertThat(streamless.offersNone(session("s-2"), "alice")).as("another session is not marked").isFalse();

		now.addAndGet(StreamlessSessions.LOOK_AGAIN.toNanos() - 1);
		assertThat(streamless.offersNone(session, "alice")).as("within the lifetime").isTrue();
		now.addAndGet(1);
		assertThat(streamless.offersNone(session, "alice")).as("the lifetime passed: the server is asked again")
			.isFalse();

		streamless.remember(session, "alice");
		assertThat(streamless.offersNone(session, "alice")).as("marked again by the next 404").isTrue();
	}

	@Test
	void oneClientsRefusedGetNeverMarksAnotherClientOfAServerWithoutSessions() {
		UpstreamSession none = session(null);
		streamless.remember(none, "alice");
		assertThat(streamless.offersNone(none, "alice")).isTrue();
		assertThat(streamless.offersNone(none, "bob")).as("bob's listens still send their GET").isFalse();
	}

	@Test
	void theOldestMarksGoFirstPastTheBound() {
		for (int s = 0; s <= StreamlessSessions.MAX_SESSIONS; s++) {
			streamless.remember(session("s-" + s), "c");
		}
		assertThat(streamless.offersNone(session("s-0"), "c")).as("the least recently marked, forgotten").isFalse();
		assertThat(streamless.offersNone(session("s-1"), "c")).isTrue();
		assertThat(streamless.offersNone(session("s-" + StreamlessSessions.MAX_SESSIONS), "c")).isTrue();
	}

	private static UpstreamSession session(String id) {
		return new UpstreamSession(id, "2025-11-25", JsonNodeFactory.instance.objectNode(),
				JsonNodeFactory.instance.objectNode(), null);
	}

}
