package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import reactor.core.publisher.Mono;

/**
 * Review 46c finding 8's bound: the {@code notifications/cancelled} the bridge sends after its client has gone are
 * bounded in count (at most {@value BridgedCancellations#MAX_IN_FLIGHT} in flight per server) and in time (each ends at
 * the server's {@code timeouts.non-streaming}), against a scripted server that never answers them (what no real
 * server does on demand); one request is told at most once, and an answered one never.
 */
class BridgedCancellationsTest {

	private static final UpstreamSession SESSION = new UpstreamSession("s-1", "2025-11-25",
			JsonNodeFactory.instance.objectNode(), JsonNodeFactory.instance.objectNode(), null);

	@Test
	void atMostSixtyFourAreInFlightEachUntilItsTimeoutAndARequestIsToldOnceUnlessAnswered() throws Exception {
		Queue<String> sent = new ConcurrentLinkedQueue<>();
		PostOnlyUpstream silent = new PostOnlyUpstream() {
			@Override
			public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
				sent.add(new String(request.body(), StandardCharsets.UTF_8));
				return Mono.never();
			}
		};
		AtomicInteger inFlight = new AtomicInteger();
		BridgedCancellations cancellations = new BridgedCancellations(silent, "s", Duration.ofSeconds(2), inFlight);
		UpstreamRequest relayed = new UpstreamRequest("s", HttpMethod.POST, URI.create("http://127.0.0.1:1/mcp"),
				new HttpHeaders(), new byte[0], "caller", null);

		BridgedCancellations.Sent answered = cancellations.mint(relayed, SESSION);
		assertThat(answered.answeredBy(JsonNodeFactory.instance.objectNode().put("id", answered.id)
			.set("result", JsonNodeFactory.instance.objectNode()))).isTrue();
		answered.abandon();
		assertThat(sent).as("an answered request is never told cancelled").isEmpty();

		BridgedCancellations.Sent first = cancellations.mint(relayed, SESSION);
		first.abandon();
		first.abandon();
		assertThat(sent).as("told once").hasSize(1);
		assertThat(sent.peek()).contains("\"method\":\"notifications/cancelled\"").contains("\"requestId\":\""
				+ first.id + "\"");

		for (int i = 0; i < BridgedCancellations.MAX_IN_FLIGHT + 10; i++) {
			cancellations.mint(relayed, SESSION).abandon();
		}
		assertThat(sent).as("at most %s in flight", BridgedCancellations.MAX_IN_FLIGHT)
			.hasSize(BridgedCancellations.MAX_IN_FLIGHT);
		assertThat(inFlight.get()).isEqualTo(BridgedCancellations.MAX_IN_FLIGHT);

		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (inFlight.get() > 0) {
			assertThat(System.nanoTime()).as("each ends at its timeout").isLessThan(deadline);
			Thread.sleep(20);
		}
		cancellations.mint(relayed, SESSION).abandon();
		assertThat(sent).as("room again once they timed out").hasSize(BridgedCancellations.MAX_IN_FLIGHT + 1);
	}

}
