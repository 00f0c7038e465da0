package dev.mcprelay.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedLegacySseServer;
import dev.mcprelay.testsupport.ScriptedLegacySseServer.Reaction;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A bridged session ({@code transport: sse}) against a scripted 2024-11-05 server, for what a real server does not do
 * on demand: a session ends on every way its {@code initialize} can fail to hand the client its result (a timeout, the
 * client leaving), so that no upstream stream is left open until {@code sessions.idle-timeout} (an hour here) and
 * {@code max-bridged-sessions} (two here) is not eaten by dead sessions, and an {@code initialize} sent as a
 * notification opens none; the stream's keepalive comments, the session's and not a request's, keep the GET stream
 * from going idle ({@code streaming-idle}: 2s here) and never stand in for a request's answer; and what waits for the
 * client is bounded by bytes ({@code sessions.max-held-bytes}: 64KB here) as well as by count, with a clear outcome
 * when the bound is reached: a POST whose answers overflow fails with a JSON-RPC error, a log line and a counter, and
 * messages for the GET stream past it are dropped and counted.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class LegacySseSessionEndsAndBoundsTest {

	static final ScriptedLegacySseServer UPSTREAM = new ScriptedLegacySseServer();

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	@DynamicPropertySource
	static void upstream(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.bridged.url", UPSTREAM::url);
		registry.add("mcp-relay.servers.bridged.transport", () -> "sse");
		registry.add("mcp-relay.servers.bridged.timeouts.non-streaming", () -> "1s");
		registry.add("mcp-relay.servers.bridged.timeouts.streaming-idle", () -> "2s");
		// the same server for a call that takes its time: the flood of its answers reaches the relay before the POST
		// is accepted
		registry.add("mcp-relay.servers.patient.url", UPSTREAM::url);
		registry.add("mcp-relay.servers.patient.transport", () -> "sse");
		registry.add("mcp-relay.servers.patient.timeouts.non-streaming", () -> "30s");
		registry.add("mcp-relay.sessions.max-bridged-sessions", () -> "2");
		registry.add("mcp-relay.sessions.idle-timeout", () -> "1h");
		registry.add("mcp-relay.sessions.max-held-bytes", () -> "64KB");
	}

	@AfterAll
	static void stopUpstream() {
		UPSTREAM.close();
	}

	/** Server and session id of each session a test opened. */
	private final List<String[]> opened = new ArrayList<>();

	@BeforeEach
	void resetUpstream() {
		UPSTREAM.reset();
	}

	@AfterEach
	void endSessions() {
		UPSTREAM.releaseAccepts();
		RawHttp http = new RawHttp(port);
		opened.forEach(session -> http.send(http.request(session[0]).header("Mcp-Session-Id", session[1]).DELETE()));
		await(() -> bridgedSessions() == 0, "every session of the test ended");
	}

	@Test
	void initializeThatTimesOutEndsItsSessionAndGivesBackItsPlace() {
		UPSTREAM.onRequest("initialize", Reaction.IGNORE);
		int before = UPSTREAM.streamsOpened();

		for (int attempt = 0; attempt < 3; attempt++) {
			HttpResponse<String> timedOut = initialize();
			assertThat(timedOut.statusCode()).as("attempt %d: %s", attempt, timedOut.body()).isEqualTo(504);
			assertThat(RawHttp.json(timedOut.body()).at("/error/data/reason").asText()).isEqualTo("upstream_timeout");
		}

		assertThat(UPSTREAM.streamsOpened() - before).as("each attempt opened a stream of its own").isEqualTo(3);
		await(() -> UPSTREAM.lastSession().closed(), "the relay closed the stream of the last timed-out session");
		UPSTREAM.reset();
		HttpResponse<String> next = initialize();
		assertThat(next.statusCode()).as("dead sessions do not hold the places of max-bridged-sessions: %s", next.body())
			.isEqualTo(200);
	}

	@Test
	void aClientThatLeavesDuringInitializeEndsItsSession() throws Exception {
		UPSTREAM.onRequest("initialize", Reaction.IGNORE);
		int before = UPSTREAM.streamsOpened();
		String body = McpSession.initialize(1);

		try (Socket client = new Socket()) {
			client.connect(new InetSocketAddress("127.0.0.1", port), 5000);
			OutputStream out = client.getOutputStream();
			out.write(("POST /mcp/bridged HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
					+ "Accept: " + RawHttp.ACCEPT_BOTH + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
				.getBytes(StandardCharsets.UTF_8));
			out.flush();
			await(() -> UPSTREAM.streamsOpened() > before && !UPSTREAM.lastSession().received().isEmpty(),
					"the initialize reached the server");
		}

		await(() -> UPSTREAM.lastSession().closed(), "the relay closed the stream of the session its client left");
		await(() -> bridgedSessions() == 0, "the relay forgot the session");
	}

	@Test
	void keepalivesKeepTheGetStreamOpen() throws Exception {
		UPSTREAM.keepalives = Duration.ofMillis(250);
		String session = open();
		ScriptedLegacySseServer.Session upstream = UPSTREAM.lastSession();
		RawHttp http = new RawHttp(port);
		HttpResponse<InputStream> get = http.open(http.request("bridged")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session)
			.GET());

		Thread.sleep(4000); // twice streaming-idle, with nothing on the stream but keepalives
		upstream.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\","
				+ "\"data\":\"after the keepalives\"}}");

		CompletableFuture<String> afterPings = CompletableFuture.supplyAsync(() -> firstDataLine(get.body()));
		assertThat(afterPings.get(10, TimeUnit.SECONDS)).as("the GET stream, the session's own, stayed open through them")
			.contains("after the keepalives");
		get.body().close();
	}

	@Test
	void aLostAnswerTimesOutThoughTheSessionKeepsPinging() throws Exception {
		UPSTREAM.keepalives = Duration.ofMillis(250);
		String session = open();
		UPSTREAM.onRequest("tools/call", Reaction.IGNORE);
		RawHttp http = new RawHttp(port);
		long start = System.nanoTime();

		HttpResponse<String> answered = CompletableFuture.supplyAsync(() -> http.send(http
			.post("bridged", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"lost\","
					+ "\"arguments\":{}}}")
			.header("Mcp-Session-Id", session))).get(10, TimeUnit.SECONDS);

		assertThat(answered.statusCode()).as("the session's keepalives are no answer to the request: %s", answered.body())
			.isEqualTo(504);
		assertThat(RawHttp.json(answered.body()).at("/error/data/reason").asText()).isEqualTo("upstream_timeout");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("within non-streaming (1s), not never")
			.isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void anInitializeThatNeverAnswersEndsItsSessionThoughTheStreamPings() {
		UPSTREAM.keepalives = Duration.ofMillis(250);
		UPSTREAM.onRequest("initialize", Reaction.IGNORE);

		HttpResponse<String> timedOut = initialize();

		assertThat(timedOut.statusCode()).as(timedOut.body()).isEqualTo(504);
		await(() -> UPSTREAM.lastSession().closed(), "the relay closed the stream of the session");
		await(() -> bridgedSessions() == 0, "the relay forgot the session");
	}

	@Test
	void anAnswerThatFallsSilentAfterItsProgressEndsThoughTheSessionKeepsPinging() throws Exception {
		UPSTREAM.keepalives = Duration.ofMillis(250);
		String session = open();
		ScriptedLegacySseServer.Session upstream = UPSTREAM.lastSession();
		UPSTREAM.onRequest("tools/call", Reaction.IGNORE);
		RawHttp http = new RawHttp(port);
		CompletableFuture<HttpResponse<String>> post = CompletableFuture.supplyAsync(() -> http.send(http
			.post("bridged", "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"long\","
					+ "\"arguments\":{},\"_meta\":{\"progressToken\":\"tok\"}}}")
			.header("Mcp-Session-Id", session)));
		await(() -> upstream.received().stream().anyMatch(message -> message.contains("tools/call")),
				"the call reached the server");
		upstream.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"tok\","
				+ "\"progress\":1}}");

		HttpResponse<String> answered = post.get(10, TimeUnit.SECONDS);

		List<JsonNode> messages = RawHttp.sseData(answered.body());
		assertThat(messages).as("the progress, then an error once the request fell silent for streaming-idle (2s): %s",
				answered.body())
			.extracting(message -> message.path("method").asText(message.at("/error/data/reason").asText()))
			.containsExactly("notifications/progress", "upstream_stream_idle");
	}

	@Test
	void anInitializeSentAsANotificationOpensNoSession() {
		int before = UPSTREAM.streamsOpened();
		RawHttp http = new RawHttp(port);

		HttpResponse<String> refused = http.send(http.post("bridged", "{\"jsonrpc\":\"2.0\",\"method\":\"initialize\","
				+ "\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
				+ "\"version\":\"1\"}}}"));

		assertThat(refused.statusCode()).as("no request, so no session to open: %s", refused.body()).isBetween(400, 499);
		assertThat(UPSTREAM.streamsOpened()).as("no upstream stream opened for it").isEqualTo(before);
		assertThat(bridgedSessions()).isZero();
	}

	@Test
	void aBatchWhoseInitializeFailsEndsItsSessionThoughItsOtherRequestSucceeded() {
		UPSTREAM.onRequest("initialize", Reaction.ERROR);
		RawHttp http = new RawHttp(port);

		HttpResponse<String> answered = http.send(http.post("bridged", "[" + McpSession.initialize(1)
				+ ",{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]"));

		answered.headers().firstValue("Mcp-Session-Id").ifPresent(id -> opened.add(new String[] { "bridged", id }));
		assertThat(RawHttp.messagesOf(answered)).as(answered.body())
			.extracting(message -> message.path("id").asInt() + (message.has("error") ? " error" : " result"))
			.containsExactlyInAnyOrder("1 error", "2 result");
		await(() -> UPSTREAM.lastSession().closed(), "the relay closed the stream of the session whose initialize failed");
		await(() -> bridgedSessions() == 0, "the relay forgot the session");
	}

	@Test
	void anInitializeAnsweredWithAnErrorNamesNoSession() {
		UPSTREAM.onRequest("initialize", Reaction.ERROR);

		HttpResponse<String> answered = initialize();

		assertThat(RawHttp.json(answered.body()).has("error")).as(answered.body()).isTrue();
		assertThat(answered.headers().firstValue("Mcp-Session-Id")).as("the session it would have named has ended")
			.isEmpty();
		await(() -> UPSTREAM.lastSession().closed(), "the relay closed the stream of the session");
		await(() -> bridgedSessions() == 0, "the relay forgot the session");
	}

	@Test
	void aPostWhoseAnswersOverflowWhatTheRelayHoldsFailsWithAnErrorNeverACleanEnd() throws Exception {
		String session = open("patient");
		UPSTREAM.onRequest("tools/call", Reaction.FLOOD_BEFORE_ACCEPTING);
		int logMark = CapturedLogs.all().size();
		double overflowsBefore = overflows("patient", "bridge_answer");
		RawHttp http = new RawHttp(port);

		CompletableFuture<HttpResponse<String>> post = CompletableFuture.supplyAsync(() -> http.send(http
			.post("patient", "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"flood\","
					+ "\"arguments\":{},\"_meta\":{\"progressToken\":\"f\"}}}")
			.header("Mcp-Session-Id", session)));
		await(() -> overflows("patient", "bridge_answer") == overflowsBefore + 1, "the relay counted the overflow");
		UPSTREAM.releaseAccepts();

		HttpResponse<String> answered = post.get(10, TimeUnit.SECONDS);
		List<JsonNode> messages = RawHttp.messagesOf(answered);
		JsonNode last = messages.get(messages.size() - 1);
		assertThat(last.path("id").asInt()).as("the call's last message answers it: %s", last).isEqualTo(9);
		assertThat(last.at("/error/data/reason").asText()).as("with an error naming the bound")
			.isEqualTo("held_messages_full");
		assertThat(messages).as("no result slipped through").noneMatch(message -> message.has("result"));
		assertThat(CapturedLogs.since(logMark)).as("and a log line says so")
			.anyMatch(line -> line.startsWith("WARN") && line.contains("held_messages_full"));
	}

	@Test
	void aClientThatReadsNothingMakesThePostFailAtTheBoundNotTheRelayHoldTheFlood() throws Exception {
		String session = open("patient");
		ScriptedLegacySseServer.Session upstream = UPSTREAM.lastSession();
		UPSTREAM.onRequest("tools/call", Reaction.IGNORE);
		double overflowsBefore = overflows("patient", "bridge_answer");
		String body = "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":\"big\","
				+ "\"arguments\":{},\"_meta\":{\"progressToken\":\"big\"}}}";

		try (Socket client = new Socket()) {
			client.setReceiveBufferSize(4096);
			client.connect(new InetSocketAddress("127.0.0.1", port), 5000);
			OutputStream out = client.getOutputStream();
			out.write(("POST /mcp/patient HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
					+ "Mcp-Session-Id: " + session + "\r\nAccept: " + RawHttp.ACCEPT_BOTH + "\r\nContent-Length: "
					+ body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
			out.flush();
			await(() -> upstream.received().stream().anyMatch(message -> message.contains("tools/call")),
					"the call reached the server");
			// 24 progress notifications of 1 MB for a client that reads none of them: what the relay holds for the
			// call, what it reads ahead of the client and what it handed to the client's connection (64KB each here,
			// so one message alone each) and the sockets take a few of them; the rest cannot be held
			String padding = "x".repeat(1024 * 1024);
			for (int step = 1; step <= 24; step++) {
				upstream.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{"
						+ "\"progressToken\":\"big\",\"progress\":" + step + ",\"message\":\"" + padding + "\"}}");
			}

			await(() -> overflows("patient", "bridge_answer") == overflowsBefore + 1,
					"the call's answers overflowed what the relay holds for its client (held_messages_full), where "
							+ "the relay's write took up to 160 messages whole ahead of the client");
		}
	}

	@Test
	void messagesForTheGetStreamAreHeldUpToTheByteBoundThenDroppedAndCounted() throws Exception {
		String session = open();
		ScriptedLegacySseServer.Session upstream = UPSTREAM.lastSession();
		String large = "x".repeat(20 * 1024);
		for (int i = 0; i < 10; i++) {
			upstream.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\","
					+ "\"data\":\"" + i + large + "\"}}");
		}
		await(() -> overflows("bridged", "bridge_stream") == 7, "seven of ten messages of 20KB did not fit in 64KB");

		RawHttp http = new RawHttp(port);
		HttpResponse<InputStream> get = http.open(http.request("bridged")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session)
			.GET());
		upstream.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\","
				+ "\"data\":\"marker\"}}");
		CompletableFuture<List<String>> received = CompletableFuture.supplyAsync(() -> dataLinesUntil(get.body(), "marker"));

		assertThat(received.get(10, TimeUnit.SECONDS)).as("the three held, in order, then what came after")
			.extracting(line -> line.contains("marker") ? "marker" : line.substring(line.indexOf("\"data\":\"") + 8,
					line.indexOf("\"data\":\"") + 9))
			.containsExactly("0", "1", "2", "marker");
		get.body().close();
	}

	private String open() {
		return open("bridged");
	}

	private String open(String server) {
		HttpResponse<String> initialized = initialize(server);
		assertThat(initialized.statusCode()).as(initialized.body()).isEqualTo(200);
		return initialized.headers().firstValue("Mcp-Session-Id").orElseThrow();
	}

	private HttpResponse<String> initialize() {
		return initialize("bridged");
	}

	private HttpResponse<String> initialize(String server) {
		RawHttp http = new RawHttp(port);
		HttpResponse<String> initialized;
		try {
			// bounded here: an answer that streams forever would never let a plain send return
			initialized = CompletableFuture.supplyAsync(() -> http.send(http.post(server, McpSession.initialize(1))))
				.get(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new AssertionError("no answer to initialize within 10s", ex);
		}
		initialized.headers().firstValue("Mcp-Session-Id").ifPresent(id -> opened.add(new String[] { server, id }));
		return initialized;
	}

	/** Bridged sessions open now, of both servers. */
	private double bridgedSessions() {
		return registry.get(RelayMeters.BRIDGED_SESSIONS).gauges().stream().mapToDouble(gauge -> gauge.value()).sum();
	}

	private double overflows(String server, String queue) {
		return registry.get(RelayMeters.HELD_OVERFLOWS).tag(RelayMeters.SERVER, server).tag(RelayMeters.QUEUE, queue)
			.counter()
			.count();
	}

	/** The first {@code data:} line on the stream. */
	private static String firstDataLine(InputStream stream) {
		List<String> lines = dataLinesUntil(stream, "");
		return lines.isEmpty() ? null : lines.get(0);
	}

	/** The {@code data:} lines on the stream, up to the first that contains {@code marker}. */
	private static List<String> dataLinesUntil(InputStream stream, String marker) {
		List<String> data = new ArrayList<>();
		try {
			BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8));
			String line;
			while ((line = reader.readLine()) != null) {
				if (line.startsWith("data:")) {
					data.add(line);
					if (line.contains(marker)) {
						break;
					}
				}
			}
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
		return data;
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void await(BooleanSupplier condition, String what) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("waited 10s in vain until " + what);
			}
			sleep(20);
		}
	}

}
