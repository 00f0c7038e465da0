package dev.mcprelay.transport.sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.mcprelay.sse.SseEvent;
import dev.mcprelay.transport.UpstreamTransportException;

/** Relay session ids, the caller a session is bound to, and the forms a server may name its endpoint in. */
class BridgedSessionsTest {

	private static final URI STREAM = URI.create("http://127.0.0.1:8080/hub/sse");

	@Test
	void sessionIdsAreUnguessableAndUnique() {
		Set<String> ids = new HashSet<>();
		for (int i = 0; i < 1000; i++) {
			String id = BridgedSessions.mintId();
			assertThat(id).as("256 bits, URL-safe Base64").matches("[A-Za-z0-9_-]{43}");
			ids.add(id);
		}
		assertThat(ids).hasSize(1000);
	}

	@Test
	void aSessionServesOnlyTheCallerThatOpenedIt() {
		try (BridgedSessions sessions = new BridgedSessions("s", 10, Duration.ofHours(1))) {
			BridgedSession session = new BridgedSession(BridgedSessions.mintId(), "alice", "s", STREAM, 1024, HeldLimits.of(1024), () -> {
			});
			sessions.add(session);

			assertThat(sessions.require(session.id(), "alice")).isSameAs(session);
			assertThatThrownBy(() -> sessions.require(session.id(), "mallory"))
				.as("another caller who learned the id gets 404, as for a session that does not exist")
				.isInstanceOf(UpstreamTransportException.class)
				.extracting(error -> ((UpstreamTransportException) error).kind())
				.isEqualTo(UpstreamTransportException.Kind.UNKNOWN_SESSION);
			assertThatThrownBy(() -> sessions.require(session.id(), null)).isInstanceOf(UpstreamTransportException.class);
		}
	}

	@Test
	void aCallerPastItsLimitEndsItsOwnOldestSessionNeverAnotherCallers() {
		java.util.concurrent.atomic.AtomicInteger evicted = new java.util.concurrent.atomic.AtomicInteger();
		try (BridgedSessions sessions = new BridgedSessions("s", 10, 2, Duration.ofHours(1), evicted::incrementAndGet)) {
			BridgedSession bob = open(sessions, "bob");
			BridgedSession first = open(sessions, "alice");
			BridgedSession second = open(sessions, "alice");
			BridgedSession third = open(sessions, "alice");

			assertThat(first.isEnded()).as("alice's oldest ends").isTrue();
			assertThatThrownBy(() -> sessions.require(first.id(), "alice")).isInstanceOf(UpstreamTransportException.class);
			assertThat(List.of(second, third, bob)).noneMatch(BridgedSession::isEnded);
			assertThat(sessions.require(bob.id(), "bob")).as("bob's session is untouched").isSameAs(bob);
			assertThat(sessions.size()).isEqualTo(3);
			assertThat(evicted).hasValue(1);
			third.end("the client ended it");
			open(sessions, "alice");
			assertThat(second.isEnded()).as("an ended session no longer counts").isFalse();
		}
	}

	private static BridgedSession open(BridgedSessions sessions, String caller) {
		BridgedSession[] created = new BridgedSession[1];
		created[0] = new BridgedSession(BridgedSessions.mintId(), caller, "s", STREAM, 1024, HeldLimits.of(1024),
				() -> sessions.remove(created[0]));
		sessions.add(created[0]);
		return created[0];
	}

	@Test
	void theEndpointIsReadFromEveryFormServersUse() {
		assertThat(MessageEndpoint.fromEvent(STREAM, event("endpoint", "/messages?sessionId=abc")))
			.hasToString("http://127.0.0.1:8080/messages?sessionId=abc");
		assertThat(MessageEndpoint.fromEvent(STREAM, event("endpoint", "messages?sessionId=abc")))
			.as("relative to the stream's URL").hasToString("http://127.0.0.1:8080/hub/messages?sessionId=abc");
		assertThat(MessageEndpoint.fromEvent(STREAM, event("endpoint", "http://127.0.0.1:8080/m?s=1")))
			.hasToString("http://127.0.0.1:8080/m?s=1");
		assertThat(MessageEndpoint.fromEvent(STREAM, event(null, "{\"endpoint\":\"/messages?sessionId=j\"}")))
			.hasToString("http://127.0.0.1:8080/messages?sessionId=j");
		assertThat(MessageEndpoint.fromEvent(STREAM, event(null, "{\"sessionId\":\"a b\"}")))
			.hasToString("http://127.0.0.1:8080/hub/messages?sessionId=a+b");
		assertThat(MessageEndpoint.fromEvent(STREAM, event(null, "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}")))
			.as("a message names no endpoint").isNull();
		assertThat(MessageEndpoint.fromEvent(STREAM, event(null, null))).as("a comment names none").isNull();
	}

	@Test
	void anEndpointOnAnotherOriginIsRefused() {
		assertThatThrownBy(() -> MessageEndpoint.fromEvent(STREAM, event("endpoint", "http://evil.example/steal")))
			.as("the configured credentials must not be sent elsewhere")
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("another origin");
		assertThatThrownBy(() -> MessageEndpoint.fromEvent(STREAM, event("endpoint", "https://127.0.0.1:8080/m")))
			.isInstanceOf(IllegalArgumentException.class);
		assertThatThrownBy(() -> MessageEndpoint.fromEvent(STREAM, event("endpoint", "http://127.0.0.1:9/m")))
			.isInstanceOf(IllegalArgumentException.class);
	}

	private static SseEvent event(String type, String data) {
		return new SseEvent(new byte[0], null, type, data, null);
	}

}
