package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.security.RelayMac;
import dev.mcprelay.session.SessionKey;
import dev.mcprelay.sse.SseEventWriter;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Review 46c, findings 2, 3 and 4: how a call held for its 2026 client's retry (direction 2, {@link HeldCalls}) ends,
 * against a scripted 2025 server (what no real server does on demand: a connection broken while the call waits, an
 * answer accepted slowly): a call whose exchange broke waits no more, a retry in time is not overtaken by the call's
 * clock, and the answer goes in the session the call was sent in.
 */
class HeldCallEndsTest {

	private static final String SAMPLING_ANSWER = "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":"
			+ "\"ok\"},\"model\":\"m\"}";

	@BeforeAll
	static void warm() throws Exception {
		dev.mcprelay.session.SessionIds.mint();
		PerRequestBridgeBoundsTest.warmUp();
	}

	/** Finding 2: the server's connection breaks while the call waits: the call leaves the waiting ones at once. */
	@Test
	void aCallWhoseExchangeBrokeWaitsNoMoreAndItsRetryIsExpiredWithNothingSent() throws Exception {
		Queue<String> received = new ConcurrentLinkedQueue<>();
		VersionBridge bridge = bridge(Duration.ofSeconds(60), new BridgedStreamsTest.Kept(), request -> {
			received.add(PerRequestBridgeBoundsTest.body(request));
			if (PerRequestBridgeBoundsTest.body(request).contains("\"method\":\"tools/call\"")) {
				// asks for a sampling, then the connection breaks
				return Mono.just(LocalUpstreamResponse.eventStream(new HttpHeaders(), Flux.just(ask("1"))
					.concatWith(Mono.delay(Duration.ofMillis(100))
						.then(Mono.error(new IOException("connection reset by the server"))))));
			}
			return Mono.just(PerRequestBridgeBoundsTest.answer(request, null));
		});

		String asked = PerRequestBridgeBoundsTest.send(bridge, PerRequestBridgeBoundsTest.CALL.replace("ID", "1"))
			.get(30, TimeUnit.SECONDS);
		assertThat(asked).contains("input_required");
		awaitNoHeldCall(bridge);

		String retried = PerRequestBridgeBoundsTest.send(bridge, retry(2, asked)).get(30, TimeUnit.SECONDS);
		assertThat(retried).as("%s", retried).contains("input_required_expired").contains("\"id\":2");
		assertThat(received).as("the client's answer was not sent to a server whose exchange is gone")
			.noneMatch(body -> body.contains("\"result\"") && body.contains("sampling-1"));
	}

	/** Finding 3: a retry that came in time continues the call, however long the server takes to accept the answer. */
	@Test
	void aRetryInTimeIsNotOvertakenByTheCallsClockWhileTheServerTakesTheAnswer() throws Exception {
		Sinks.Many<byte[]> rest = Sinks.many().unicast().onBackpressureBuffer();
		VersionBridge bridge = bridge(Duration.ofMillis(600), new BridgedStreamsTest.Kept(), request -> {
			String body = PerRequestBridgeBoundsTest.body(request);
			if (body.contains("\"method\":\"tools/call\"")) {
				return Mono.just(LocalUpstreamResponse.eventStream(new HttpHeaders(),
						Flux.just(ask("1")).concatWith(rest.asFlux())));
			}
			if (body.contains("sampling-1") && body.contains("\"result\"")) {
				// accepted after a second, past the call's 600 ms; then the call's result follows on its stream
				return Mono.delay(Duration.ofSeconds(1)).map(late -> {
					rest.tryEmitNext(SseEventWriter.message(result()));
					rest.tryEmitComplete();
					return LocalUpstreamResponse.empty(HttpStatus.ACCEPTED);
				});
			}
			return Mono.just(PerRequestBridgeBoundsTest.answer(request, null));
		});

		String asked = PerRequestBridgeBoundsTest.send(bridge, PerRequestBridgeBoundsTest.CALL.replace("ID", "1"))
			.get(30, TimeUnit.SECONDS);
		assertThat(asked).contains("input_required");
		String retried = PerRequestBridgeBoundsTest.send(bridge, retry(2, asked)).get(30, TimeUnit.SECONDS);
		assertThat(retried).as("%s", retried).contains("\"id\":2").contains("\"resultType\":\"complete\"")
			.doesNotContain("upstream_stream_idle");
	}

	/**
	 * Review 46e, N1: the server's stream of the held call breaks while the server takes the client's answer (after
	 * the retry took the call): the retry is told at once, where it waited the whole streaming-idle (here 60 s) for a
	 * round nothing fed, and was then told the server had been silent.
	 */
	@Test
	void aRetryWhoseCallBrokeWhileTheServerTookTheAnswerIsToldAtOnce() throws Exception {
		Sinks.Many<byte[]> rest = Sinks.many().unicast().onBackpressureBuffer();
		VersionBridge bridge = bridge(Duration.ofSeconds(60), new BridgedStreamsTest.Kept(), request -> {
			String body = PerRequestBridgeBoundsTest.body(request);
			if (body.contains("\"method\":\"tools/call\"")) {
				return Mono.just(LocalUpstreamResponse.eventStream(new HttpHeaders(),
						Flux.just(ask("1")).concatWith(rest.asFlux())));
			}
			if (body.contains("sampling-1") && body.contains("\"result\"")) {
				// the call's stream breaks as the answer arrives; the answer is accepted a little later
				rest.tryEmitError(new IOException("connection reset by the server"));
				return Mono.delay(Duration.ofMillis(300)).map(late -> LocalUpstreamResponse.empty(HttpStatus.ACCEPTED));
			}
			return Mono.just(PerRequestBridgeBoundsTest.answer(request, null));
		});

		String asked = PerRequestBridgeBoundsTest.send(bridge, PerRequestBridgeBoundsTest.CALL.replace("ID", "1"))
			.get(30, TimeUnit.SECONDS);
		assertThat(asked).contains("input_required");
		String retried = PerRequestBridgeBoundsTest.send(bridge, retry(2, asked)).get(30, TimeUnit.SECONDS);
		assertThat(retried).as("%s", retried).contains("\"id\":2").contains("upstream_stream_broken")
			.doesNotContain("upstream_stream_idle");
		awaitNoHeldCall(bridge);
	}

	/**
	 * Review 46e, N4: a retry carrying a held call's requestState names another tool, other arguments, another
	 * method: refused (-32602) with nothing sent to the server, and the call still waits for its own retry.
	 */
	@Test
	void aRetryNamingAnotherCallThanItsStatesIsRefusedWithNothingSent() throws Exception {
		Queue<String> received = new ConcurrentLinkedQueue<>();
		Sinks.Many<byte[]> rest = Sinks.many().unicast().onBackpressureBuffer();
		VersionBridge bridge = bridge(Duration.ofSeconds(60), new BridgedStreamsTest.Kept(), request -> {
			String body = PerRequestBridgeBoundsTest.body(request);
			received.add(body);
			if (body.contains("\"method\":\"tools/call\"")) {
				return Mono.just(LocalUpstreamResponse.eventStream(new HttpHeaders(),
						Flux.just(ask("1")).concatWith(rest.asFlux())));
			}
			if (body.contains("sampling-1") && body.contains("\"result\"")) {
				rest.tryEmitNext(SseEventWriter.message(result()));
				rest.tryEmitComplete();
				return Mono.just(LocalUpstreamResponse.empty(HttpStatus.ACCEPTED));
			}
			return Mono.just(PerRequestBridgeBoundsTest.answer(request, null));
		});

		String asked = PerRequestBridgeBoundsTest.send(bridge, PerRequestBridgeBoundsTest.CALL.replace("ID", "1"))
			.get(30, TimeUnit.SECONDS);
		assertThat(asked).contains("input_required");
		String ask = retry(2, asked);
		for (String other : List.of(ask.replace("\"name\":\"ask\"", "\"name\":\"nope\""),
				ask.replace("\"arguments\":{}", "\"arguments\":{\"x\":1}"),
				ask.replace("\"tools/call\"", "\"resources/read\"").replace("\"name\":\"ask\"",
						"\"uri\":\"file:///etc/passwd\""))) {
			String refused = PerRequestBridgeBoundsTest.send(bridge, other).get(30, TimeUnit.SECONDS);
			assertThat(refused).as("%s", refused).contains("-32602").contains("request_state_invalid")
				.contains("another method, tool").doesNotContain("resultType");
		}
		assertThat(received).as("no answer sent for a retry of another call")
			.noneMatch(body -> body.contains("\"result\"") && body.contains("sampling-1"));

		String retried = PerRequestBridgeBoundsTest.send(bridge, ask.replace("\"arguments\":{}",
				"\"arguments\":{ }")).get(30, TimeUnit.SECONDS);
		assertThat(retried).as("the call's own retry still continues it: %s", retried).contains("\"id\":2")
			.contains("\"resultType\":\"complete\"");
	}

	/** Finding 4: the store forgot the client's session while the call waited: the answer goes in the call's own. */
	@Test
	void theAnswerGoesInTheSessionTheCallWasSentInAndTheHeldCallKeepsItInUse() throws Exception {
		BridgedStreamsTest.Kept store = new BridgedStreamsTest.Kept();
		AtomicInteger initializes = new AtomicInteger();
		Queue<String> answeredIn = new ConcurrentLinkedQueue<>();
		Sinks.Many<byte[]> rest = Sinks.many().unicast().onBackpressureBuffer();
		VersionBridge bridge = bridge(Duration.ofSeconds(60), store, request -> {
			String body = PerRequestBridgeBoundsTest.body(request);
			if (body.contains("\"initialize\"")) {
				HttpHeaders headers = new HttpHeaders();
				headers.setContentType(MediaType.APPLICATION_JSON);
				headers.set("Mcp-Session-Id", "s-" + initializes.incrementAndGet());
				return Mono.just(LocalUpstreamResponse.json(headers, ("{\"jsonrpc\":\"2.0\",\"id\":\""
						+ RawHttp.json(body).path("id").asText() + "\",\"result\":{\"protocolVersion\":\"2025-11-25\","
						+ "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}")
					.getBytes(StandardCharsets.UTF_8)));
			}
			if (body.contains("\"method\":\"tools/call\"")) {
				return Mono.just(LocalUpstreamResponse.eventStream(new HttpHeaders(),
						Flux.just(ask("1")).concatWith(rest.asFlux())));
			}
			if (body.contains("sampling-1") && body.contains("\"result\"")) {
				answeredIn.add(request.headers().getFirst("Mcp-Session-Id"));
				rest.tryEmitNext(SseEventWriter.message(result()));
				rest.tryEmitComplete();
			}
			return Mono.just(LocalUpstreamResponse.empty(HttpStatus.ACCEPTED));
		});
		String call = PerRequestBridgeBoundsTest.CALL.replace("ID", "1");

		String asked = PerRequestBridgeBoundsTest.send(bridge, call).get(30, TimeUnit.SECONDS);
		assertThat(asked).contains("input_required");
		String storeId = UpstreamSessions.storeId(ModernClient.of("alice", BridgedAnswers.parse(call
			.getBytes(StandardCharsets.UTF_8))).key());
		assertThat(flights.of("b").sessionsInUse()).as("kept in use while held (renewed)").contains(storeId);
		store.end(new SessionKey("b", storeId), "alice").block();

		String retried = PerRequestBridgeBoundsTest.send(bridge, retry(2, asked)).get(30, TimeUnit.SECONDS);
		assertThat(retried).as("%s", retried).contains("\"resultType\":\"complete\"");
		assertThat(answeredIn).as("the answer went in the call's session").containsExactly("s-1");
		assertThat(initializes).as("no session opened for the retry").hasValue(1);
	}

	private BridgeFlights flights;

	private VersionBridge bridge(Duration idle, BridgedStreamsTest.Kept store,
			Function<UpstreamRequest, Mono<UpstreamResponse>> server) {
		flights = new BridgeFlights(null, Duration.ofHours(1));
		return new VersionBridge(new Scripted(server), "b", new ServerVersions("b", List.of("2025-11-25")), 65536,
				store, flights, idle, new RelayMac((String) null), Duration.ofSeconds(30));
	}

	private static void awaitNoHeldCall(VersionBridge bridge) throws InterruptedException {
		// an event, not a duration: the call leaves the waiting ones when its exchange ends (a bound for a hang only)
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (bridge.heldCalls() > 0 && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(bridge.heldCalls()).as("the call whose exchange broke waits no more").isZero();
	}

	private static byte[] ask(String id) {
		return SseEventWriter.message("{\"jsonrpc\":\"2.0\",\"id\":\"sampling-" + id + "\",\"method\":"
				+ "\"sampling/createMessage\",\"params\":{\"messages\":[],\"maxTokens\":5}}");
	}

	/** The call's result, under the id the relay sent the call with (found in what the server saw first). */
	private static String result() {
		return "{\"jsonrpc\":\"2.0\",\"id\":\"" + CALL_IDS.peek() + "\",\"result\":{\"content\":[]}}";
	}

	/** The ids the relay sent calls with, as the scripted server saw them. */
	private static final Queue<String> CALL_IDS = new ConcurrentLinkedQueue<>();

	/** The client's retry of its call, with the answer to the sampling and the requestState of {@code asked}. */
	private static String retry(int id, String asked) {
		JsonNode answer = RawHttp.json(asked.substring(asked.indexOf("data: ") + 6).lines().findFirst().orElseThrow());
		String state = answer.at("/result/requestState").asText();
		String key = answer.at("/result/inputRequests").fieldNames().next();
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"ask\","
				+ "\"arguments\":{},\"inputResponses\":{\"" + key + "\":" + SAMPLING_ANSWER + "},\"requestState\":\""
				+ state + "\"," + PerRequestBridgeBoundsTest.META + "}}";
	}

	/** A 2025 server as {@code answer} scripts it; the ids of the calls it is sent are kept in {@link #CALL_IDS}. */
	private record Scripted(Function<UpstreamRequest, Mono<UpstreamResponse>> answer) implements PostOnlyUpstream {

		@Override
		public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return Mono.defer(() -> {
				String body = PerRequestBridgeBoundsTest.body(request);
				if (body.contains("\"method\":\"tools/call\"")) {
					CALL_IDS.clear();
					CALL_IDS.add(RawHttp.json(body).path("id").asText());
				}
				request.onWritten().run();
				return answer.apply(request).flatMap(handler);
			});
		}


	}

}
