package dev.mcprelay.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedLegacySseServer.EndpointForm;
import dev.mcprelay.testsupport.ScriptedLegacySseServer.Reaction;
import dev.mcprelay.testsupport.ScriptedLegacySseServer;
import dev.mcprelay.testsupport.TestUpstreams;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The legacy HTTP+SSE bridge ({@code transport: sse}) against a scripted 2024-11-05 server, for what a real server
 * does not do on demand: every way of naming the endpoint, no endpoint at all, the stream dropping mid-request, the
 * endpoint refusing with 500, an answer that never comes, many messages in a row and at once on one session, idle
 * expiry and the session cap. The client speaks Streamable HTTP to the relay throughout.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class LegacySseBridgeTest {

	static final ScriptedLegacySseServer UPSTREAM = new ScriptedLegacySseServer();

	static final int CAP = 4;

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	@DynamicPropertySource
	static void upstream(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.legacy.url", UPSTREAM::url);
		registry.add("mcp-relay.servers.legacy.transport", () -> "sse");
		registry.add("mcp-relay.servers.legacy.timeouts.non-streaming", () -> "1s");
		registry.add("mcp-relay.servers.legacy.headers[0].name", () -> "X-Api-Key");
		registry.add("mcp-relay.servers.legacy.headers[0].value", () -> "configured-key");
		registry.add("mcp-relay.servers.legacy.tools.deny[0]", () -> "forbidden");
		registry.add("mcp-relay.servers.capped.url", UPSTREAM::url);
		registry.add("mcp-relay.servers.capped.transport", () -> "sse");
		registry.add("mcp-relay.servers.refused.url", () -> "http://127.0.0.1:" + TestUpstreams.REFUSED_PORT + "/sse");
		registry.add("mcp-relay.servers.refused.transport", () -> "sse");
		registry.add("mcp-relay.servers.not-sse.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.not-sse.transport", () -> "sse");
		registry.add("mcp-relay.sessions.max-bridged-sessions", () -> String.valueOf(CAP));
		registry.add("mcp-relay.sessions.idle-timeout", () -> "3s");
	}

	@AfterAll
	static void stopUpstream() {
		UPSTREAM.close();
	}

	/** The sessions a test opened, ended after it so that the next test starts under the cap. */
	private final List<String[]> opened = new ArrayList<>();

	@BeforeEach
	void resetUpstream() {
		UPSTREAM.reset();
	}

	@AfterEach
	void endSessions() {
		opened.forEach(session -> delete(session[0], session[1]));
	}

	@Test
	void initializeOpensTheStreamAndAnswersWithARelaySessionOfItsOwn() {
		HttpResponse<String> initialized = initialize("legacy");

		assertThat(initialized.statusCode()).isEqualTo(200);
		assertThat(initialized.headers().firstValue("Content-Type")).hasValueSatisfying(
				type -> assertThat(type).startsWith("application/json"));
		String sessionId = initialized.headers().firstValue("Mcp-Session-Id").orElseThrow();
		assertThat(sessionId).as("at least 128 random bits, URL-safe").matches("[A-Za-z0-9_-]{43,}");
		assertThat(RawHttp.json(initialized.body()).at("/result/serverInfo/name").asText()).isEqualTo("scripted-legacy");
		assertThat(UPSTREAM.seenHeaders()).as("the configured header reaches the stream and the endpoint")
			.contains("X-Api-Key: configured-key")
			.as("the relay's own session id never reaches the upstream")
			.noneMatch(header -> header.contains(sessionId));
		assertThat(UPSTREAM.lastSession().received()).singleElement()
			.satisfies(body -> assertThat(body).contains("\"initialize\""));
	}

	@Test
	void everyFormOfNamingTheEndpointWorks() {
		// HEADER_*: a session id in the stream's headers (whose conventional endpoint this server does not know) does
		// not override the endpoint the stream names: not when the event comes first, nor when a comment or a retry:
		// field (which SSE never dispatches) comes before it, nor when it comes half a second late. ("capped" waits
		// the default 48s for an endpoint: a header waits a second of it for the stream to name one.)
		for (EndpointForm form : List.of(EndpointForm.EVENT, EndpointForm.JSON_ENDPOINT, EndpointForm.HEADER,
				EndpointForm.HEADER_AND_EVENT, EndpointForm.HEADER_COMMENT_THEN_EVENT,
				EndpointForm.HEADER_RETRY_THEN_EVENT, EndpointForm.HEADER_THEN_LATE_EVENT)) {
			UPSTREAM.endpointForm = form;
			HttpResponse<String> initialized = initialize("capped");
			assertThat(initialized.statusCode()).as("%s: %s", form, initialized.body()).isEqualTo(200);
			String session = sessionOf(initialized);
			HttpResponse<String> answer = send("capped", session, RawHttp.toolsCall(7, "anything"));
			assertThat(RawHttp.json(answer.body()).at("/result/echoedId").asInt()).as("%s: %s", form, answer.body())
				.isEqualTo(7);
			delete("capped", session);
		}
	}

	@Test
	void noEndpointEventFailsInitializeClearlyWithinTheTimeout() {
		UPSTREAM.endpointForm = EndpointForm.NONE;
		long start = System.nanoTime();

		HttpResponse<String> refused = initialize("legacy");

		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		assertThat(refused.statusCode()).isEqualTo(504);
		JsonNode error = RawHttp.json(refused.body());
		assertThat(error.at("/id").asInt()).isEqualTo(1);
		assertThat(error.at("/error/data/reason").asText()).isEqualTo("upstream_no_endpoint");
		assertThat(error.at("/error/message").asText()).contains("endpoint");
		assertThat(refused.headers().firstValue("Mcp-Session-Id")).as("no session was made").isEmpty();
		await(() -> UPSTREAM.lastSession().closed(), "the silent stream was closed");
	}

	@Test
	void aStreamThatCannotBeOpenedFailsInitializeWithTheReason() {
		HttpResponse<String> refused = initialize("refused");
		assertThat(refused.statusCode()).isEqualTo(502);
		assertThat(RawHttp.json(refused.body()).at("/error/data/reason").asText()).isEqualTo("upstream_unreachable");

		HttpResponse<String> notSse = initialize("not-sse");
		assertThat(notSse.statusCode()).as("a Streamable HTTP server answers the GET, but not with a stream")
			.isEqualTo(502);
		assertThat(RawHttp.json(notSse.body()).at("/error/data/reason").asText()).isIn("upstream_error_status",
				"upstream_not_event_stream");
		assertThat(RawHttp.json(notSse.body()).at("/id").asInt()).isEqualTo(1);
	}

	@Test
	void aStreamThatDropsMidRequestFailsItAndEndsTheSession() {
		String session = sessionOf(initialize("legacy"));
		UPSTREAM.onRequest("tools/call", Reaction.DROP_STREAM);

		HttpResponse<String> failed = send("legacy", session, RawHttp.toolsCall(5, "slow"));

		assertThat(failed.statusCode()).isEqualTo(502);
		assertThat(RawHttp.json(failed.body()).at("/id").asInt()).as("the error answers the request").isEqualTo(5);
		assertThat(RawHttp.json(failed.body()).at("/error/data/reason").asText()).isEqualTo("upstream_stream_ended");
		HttpResponse<String> next = send("legacy", session, RawHttp.toolsCall(6, "any"));
		assertThat(next.statusCode()).as("the session is over: the client re-initializes").isEqualTo(404);
		assertThat(RawHttp.json(next.body()).at("/id").asInt()).isEqualTo(6);
	}

	@Test
	void anEndpointAnswering500FailsThatRequestOnly() {
		String session = sessionOf(initialize("legacy"));
		UPSTREAM.onRequest("tools/call", Reaction.REFUSE_500);

		HttpResponse<String> failed = send("legacy", session, RawHttp.toolsCall(8, "broken"));

		assertThat(failed.statusCode()).isEqualTo(502);
		assertThat(RawHttp.json(failed.body()).at("/id").asInt()).isEqualTo(8);
		assertThat(RawHttp.json(failed.body()).at("/error/data/reason").asText()).isEqualTo("upstream_error_status");
		assertThat(RawHttp.json(failed.body()).at("/error/message").asText()).contains("HTTP 500").doesNotContain("boom");
		HttpResponse<String> listed = send("legacy", session, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}");
		assertThat(RawHttp.json(listed.body()).at("/result/echoedId").asInt()).as("the session goes on").isEqualTo(9);
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void anAnswerThatNeverComesTimesOutAndALateOneIsDropped(CapturedOutput output) throws InterruptedException {
		String session = sessionOf(initialize("legacy"));
		UPSTREAM.onRequest("tools/call", Reaction.IGNORE);

		HttpResponse<String> timedOut = send("legacy", session, RawHttp.toolsCall(11, "never"));

		assertThat(timedOut.statusCode()).isEqualTo(504);
		assertThat(RawHttp.json(timedOut.body()).at("/id").asInt()).isEqualTo(11);
		UPSTREAM.lastSession().send("{\"jsonrpc\":\"2.0\",\"id\":11,\"result\":{\"late\":true}}");
		// the late answer is read from the session's stream on its own connection: wait until the relay dropped it,
		// so that the next request with the same id is certainly sent after it
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (!output.getOut().contains("that nothing waits for") && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(output.getOut()).as("the late answer was dropped").contains("that nothing waits for");
		HttpResponse<String> listed = send("legacy", session, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/list\"}");
		assertThat(RawHttp.json(listed.body()).at("/result/method").asText())
			.as("the id is free again, and the late answer did not take its place").isEqualTo("tools/list");
	}

	@Test
	void aStrayAnswerOnTheSessionsStreamIsDroppedAndCountedAsTheDirectPathCountsOne() {
		String session = sessionOf(initialize("legacy"));
		double before = dropped();

		UPSTREAM.lastSession().send("{\"jsonrpc\":\"2.0\",\"id\":\"nobody-asked\",\"result\":{}}");

		await(() -> dropped() == before + 1, "the stray answer counted as dropped");
		HttpResponse<String> listed = send("legacy", session, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/list\"}");
		assertThat(RawHttp.json(listed.body()).at("/result/method").asText()).as("the session goes on")
			.isEqualTo("tools/list");
	}

	@Test
	void anAnswerUnderTheServersOwnIdIsRefusedAndNeverReachesTheServer() {
		String session = sessionOf(initialize("legacy"));
		int received = UPSTREAM.lastSession().received().size();

		HttpResponse<String> refused = send("legacy", session, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}");

		assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
		assertThat(RawHttp.json(refused.body()).at("/error/data/reason").asText()).isEqualTo("unknown_request_id");
		assertThat(UPSTREAM.lastSession().received()).as("nothing of it reached the server").hasSize(received);
	}

	private double dropped() {
		var counter = registry.find("mcp.relay.upstream.unmatched").tag("server", "legacy").tag("handling", "dropped")
			.counter();
		return counter == null ? 0 : counter.count();
	}

	@Test
	void progressForARequestComesFirstOnItsOwnStream() {
		String session = sessionOf(initialize("legacy"));
		UPSTREAM.onRequest("tools/call", Reaction.PROGRESS_THEN_ANSWER);

		HttpResponse<String> streamed = send("legacy", session, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"long\",\"arguments\":{},\"_meta\":{\"progressToken\":\"tok\"}}}");

		assertThat(streamed.headers().firstValue("Content-Type")).hasValueSatisfying(
				type -> assertThat(type).startsWith("text/event-stream"));
		List<JsonNode> events = RawHttp.sseData(streamed.body());
		assertThat(events).extracting(event -> event.path("method").asText(""))
			.containsExactly("notifications/progress", "notifications/progress", "");
		assertThat(events.get(2).at("/result/echoedId").asInt()).isEqualTo(3);
	}

	@Test
	void aHundredMessagesInARowAndTwentyAtOnceEachGetTheirOwnAnswer() {
		String session = sessionOf(initialize("legacy"));
		for (int id = 100; id < 200; id++) {
			HttpResponse<String> answer = send("legacy", session, RawHttp.toolsCall(id, "seq"));
			assertThat(RawHttp.json(answer.body()).at("/result/echoedId").asInt()).isEqualTo(id);
		}
		UPSTREAM.answerJitter = Duration.ofMillis(200);
		List<CompletableFuture<HttpResponse<String>>> concurrent = IntStream.range(1000, 1020)
			.mapToObj(id -> CompletableFuture.supplyAsync(() -> send("legacy", session, RawHttp.toolsCall(id, "par"))))
			.toList();
		for (int i = 0; i < concurrent.size(); i++) {
			HttpResponse<String> response = concurrent.get(i).join();
			JsonNode answer = RawHttp.json(response.body());
			assertThat(answer.at("/id").asInt()).as("the answer is for the request that asked: %s %s",
					response.statusCode(), response.body()).isEqualTo(1000 + i);
			assertThat(answer.at("/result/echoedId").asInt()).isEqualTo(1000 + i);
		}
		assertThat(UPSTREAM.lastSession().received()).hasSize(121);
	}

	@Test
	void serverMessagesWaitForTheGetStreamAndReachIt() throws Exception {
		String session = sessionOf(initialize("legacy"));
		UPSTREAM.lastSession().send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":"
				+ "{\"level\":\"info\",\"data\":\"held\"}}");
		Thread.sleep(200);

		RawHttp http = new RawHttp(port);
		HttpResponse<InputStream> stream = http.open(http.request("legacy")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session)
			.GET());
		assertThat(stream.statusCode()).isEqualTo(200);
		HttpResponse<String> second = http.send(http.request("legacy")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session)
			.GET());
		assertThat(second.statusCode()).as("one GET stream per session").isEqualTo(409);
		UPSTREAM.lastSession().send("{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"roots/list\"}");
		String relayId;

		try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
			List<String> data = new ArrayList<>();
			String line;
			while (data.size() < 2 && (line = reader.readLine()) != null) {
				if (line.startsWith("data:")) {
					data.add(line);
				}
			}
			assertThat(data.get(0)).contains("held");
			assertThat(data.get(1)).contains("roots/list");
			relayId = RawHttp.json(data.get(1).substring(5).strip()).get("id").asText();
		}
		// the client answers under the id it got (the relay's), and the server gets its own back
		HttpResponse<String> answered = send("legacy", session, "{\"jsonrpc\":\"2.0\",\"id\":\"" + relayId
				+ "\",\"result\":{\"roots\":[]}}");
		assertThat(answered.statusCode()).as("the client's answer to the server is accepted").isEqualTo(202);
		assertThat(UPSTREAM.lastSession().received()).last().satisfies(body -> assertThat(body).contains("srv-1"));
	}

	@Test
	void deleteClosesTheUpstreamStreamAndEndsTheSession() {
		String session = sessionOf(initialize("legacy"));
		ScriptedLegacySseServer.Session upstream = UPSTREAM.lastSession();

		assertThat(delete("legacy", session).statusCode()).isEqualTo(200);

		await(upstream::closed, "the relay closed the upstream stream");
		assertThat(send("legacy", session, RawHttp.toolsCall(1, "x")).statusCode()).isEqualTo(404);
		assertThat(send("legacy", "not-a-session", RawHttp.toolsCall(2, "x")).statusCode()).isEqualTo(404);
		assertThat(send("legacy", null, RawHttp.toolsCall(3, "x")).statusCode()).as("no session at all").isEqualTo(404);
	}

	@Test
	void anAbandonedSessionIsClosedAfterTheIdleTimeout() {
		String session = sessionOf(initialize("legacy"));
		ScriptedLegacySseServer.Session upstream = UPSTREAM.lastSession();

		await(upstream::closed, "the idle session's stream was closed");
		assertThat(send("legacy", session, RawHttp.toolsCall(1, "x")).statusCode()).isEqualTo(404);
	}

	@Test
	void policiesAndMetricsApplyAsOnAnyUpstream() {
		String session = sessionOf(initialize("legacy"));
		int before = UPSTREAM.lastSession().received().size();

		HttpResponse<String> refused = send("legacy", session, RawHttp.toolsCall(21, "forbidden"));

		assertThat(RawHttp.json(refused.body()).at("/error/code").asInt()).as("the deny list holds").isEqualTo(-32602);
		assertThat(UPSTREAM.lastSession().received()).as("nothing refused reaches the upstream").hasSize(before);
		assertThat(registry.get(RelayMeters.BRIDGED_SESSIONS).tag(RelayMeters.SERVER, "legacy").gauge().value())
			.as("the open session is counted").isGreaterThanOrEqualTo(1);
		assertThat(registry.get(RelayMeters.REQUESTS).tag(RelayMeters.SERVER, "legacy").counters())
			.as("requests are counted per server as for any upstream").isNotEmpty();
	}

	@Test
	void theSessionCapRefusesOneMoreUntilOneEnds() {
		List<String> sessions = new ArrayList<>();
		for (int i = 0; i < CAP; i++) {
			sessions.add(sessionOf(initialize("capped")));
		}

		HttpResponse<String> refused = initialize("capped");
		assertThat(refused.statusCode()).isEqualTo(503);
		assertThat(RawHttp.json(refused.body()).at("/error/data/reason").asText()).isEqualTo("too_many_sessions");

		delete("capped", sessions.get(0));
		assertThat(initialize("capped").statusCode()).isEqualTo(200);
	}

	private HttpResponse<String> initialize(String server) {
		HttpResponse<String> initialized = send(server, null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
				+ "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}");
		initialized.headers().firstValue("Mcp-Session-Id").ifPresent(id -> opened.add(new String[] { server, id }));
		return initialized;
	}

	private HttpResponse<String> send(String server, String session, String body) {
		RawHttp http = new RawHttp(port);
		var request = http.post(server, body);
		if (session != null) {
			request.header("Mcp-Session-Id", session);
		}
		return http.send(request);
	}

	private HttpResponse<String> delete(String server, String session) {
		RawHttp http = new RawHttp(port);
		return http.send(http.request(server).header("Mcp-Session-Id", session).DELETE());
	}

	private static String sessionOf(HttpResponse<String> initialized) {
		assertThat(initialized.statusCode()).as(initialized.body()).isEqualTo(200);
		return initialized.headers().firstValue("Mcp-Session-Id").orElseThrow();
	}

	private static void await(java.util.function.BooleanSupplier condition, String what) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as(what).isLessThan(deadline);
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError(ex);
			}
		}
	}

}
