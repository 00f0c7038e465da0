package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.reactivestreams.Publisher;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A member of a virtual server whose session is found lost by the merged GET after a reload changed the member's
 * server (its secret header): the member is joined again on the settings current now, never through the snapshot the
 * merged GET began on (the old secret). The member is scripted: it holds the member GET of its first session until the
 * test lets it answer 404 (the member restarted meanwhile), which no real server can be told to do.
 */
class ChangedMemberRejoinReloadTest {

	static ScriptedUpstream alpha;

	static final AtomicInteger SESSIONS = new AtomicInteger();

	/** Lets the first member GET of a test be answered: 404, its session is gone. */
	static volatile Sinks.Empty<Void> lost = Sinks.empty();

	/** Whether the next GET is the first of the test, which waits for {@link #lost}. */
	static final AtomicBoolean FIRST_GET = new AtomicBoolean();

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config("old-secret")).peer(() -> {
		alpha = new ScriptedUpstream();
		alpha.scriptWithBody(ChangedMemberRejoinReloadTest::answer);
		return alpha;
	});

	@BeforeEach
	void fresh() {
		lost = Sinks.empty();
		FIRST_GET.set(true);
		alpha.clear();
	}

	@Test
	void aChangedMemberWhoseSessionTheMergedGetFindsLostIsJoinedAgainOnItsNewSettings() throws Exception {
		RawHttp http = live.http();
		McpSession session = McpSession.open(http, "v");
		await("the member GET at alpha").until(() -> alpha.seen().stream().anyMatch(seen -> seen.method().equals("GET")));
		try (OpenSse get = new OpenSse(http.open(http.request("v")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.GET()))) {
			live.reload(config("new-secret"), ReloadOutcome.APPLIED);
			alpha.clear();

			// the member GET sent before the reload is answered after it: alpha no longer knows its session
			lost.tryEmitEmpty();

			await("alpha joined again").atMost(Duration.ofSeconds(20)).until(() -> !initializes().isEmpty());
			assertThat(initializes()).as("the initialize that joined alpha again, by the secret it carried")
				.allMatch(secret -> secret.equals("new-secret"));
			JsonNode told = get.next();
			assertThat(told.path("params").path("data").asText()).as("the client is told on its GET: %s", told)
				.contains("Member 'alpha' had lost its session");
		}
	}

	/** The secret of each initialize alpha got since the test cleared what it saw. */
	private static List<String> initializes() {
		return alpha.seen()
			.stream()
			.filter(seen -> seen.body().contains("\"initialize\""))
			.map(seen -> String.valueOf(seen.headers().getFirst("X-Secret")))
			.toList();
	}

	/**
	 * alpha: a session on each {@code initialize}; on a GET, the first of the test answered 404 once {@link #lost}
	 * says so, any other an event stream that stays open; every other request an empty result, every
	 * notification accepted.
	 */
	private static Publisher<Void> answer(HttpServerRequest request, HttpServerResponse response, String body) {
		if (request.method().name().equals("GET")) {
			if (FIRST_GET.compareAndSet(true, false)) {
				return lost.asMono().then(response.status(404).send());
			}
			return response.header("Content-Type", "text/event-stream")
				.sendString(Flux.concat(Mono.just(": open\n\n"), Mono.<String>never()));
		}
		JsonNode message = body.isEmpty() ? null : RawHttp.json(body);
		if (message == null || !message.has("id") || !message.has("method")) {
			return response.status(202).send();
		}
		if (message.path("method").asText().equals("initialize")) {
			return ScriptedUpstream.initializeAnswer(response, body, "alpha", "alpha-" + SESSIONS.incrementAndGet());
		}
		return response.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":" + message.get("id") + ",\"result\":{}}"));
	}

	/** alpha with {@code secret} in its X-Secret header, the one member of v. */
	static String config(String secret) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: none\n  servers:\n"
				+ "    alpha:\n      url: " + alpha.url("/mcp") + "\n      headers:\n"
				+ "        - { name: X-Secret, value: " + secret + " }\n"
				+ "  virtual-servers:\n    v:\n      members: [alpha]\n";
	}

}
