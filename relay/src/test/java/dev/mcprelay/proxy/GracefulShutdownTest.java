package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Shutting the relay down closes its open streams cleanly: the GET stream ends at once, the POST stream after its
 * grace period with an error event for the request still unanswered, and shutdown does not wait for Spring Boot's
 * whole graceful-shutdown timeout. Every POST in flight is waited for within the grace period, whether its upstream's
 * answer has begun or not; one still without its answer at the end is answered with a JSON-RPC error naming the
 * relay's shutdown, logged as the relay's doing. Nothing is logged as an error. Each test runs its own relay, so that
 * it can stop it.
 */
public class GracefulShutdownTest {

	@AfterEach
	void release() {
		TestUpstreams.SDK.releaseProgress();
	}

	@Test
	void aPostWhoseAnswerBeginsAfterShutdownBeganIsWaitedForWithinTheGracePeriod() throws Exception {
		Sinks.Empty<Void> answerNow = Sinks.empty();
		TestUpstreams.SCRIPTED.clear();
		TestUpstreams.SCRIPTED.script((request, response) -> answerNow.asMono()
			.then(Mono.from(response.status(200)
				.header("Content-Type", "text/event-stream")
				.sendString(Mono.just("data: {\"jsonrpc\":\"2.0\",\"id\":\"late\",\"result\":{\"content\":[]}}\n\n")))));
		ConfigurableApplicationContext relay = relay("mcp-relay.shutdown.stream-grace-period=10s");
		RawHttp http = new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
		CompletableFuture<HttpResponse<String>> post = CompletableFuture
			.supplyAsync(() -> http.send(http.post("late", RawHttp.toolsCall("late", "slow"))));
		awaitUntil(() -> !TestUpstreams.SCRIPTED.seen().isEmpty(), "the call reached the upstream");
		int logMark = CapturedLogs.all().size();

		CompletableFuture<Void> shutdown = CompletableFuture.runAsync(relay::close);
		awaitUntil(() -> CapturedLogs.since(logMark).stream().anyMatch(line -> line.contains("Shutting down:")),
				"shutdown began");
		answerNow.tryEmitEmpty();

		HttpResponse<String> answered = post.get(10, TimeUnit.SECONDS);
		assertThat(RawHttp.sseData(answered.body())).as("the answer that began after shutdown began reached the client")
			.singleElement()
			.satisfies(message -> assertThat(message.has("result")).as(message.toString()).isTrue());
		shutdown.get(10, TimeUnit.SECONDS);
		assertThat(CapturedLogs.since(logMark)).as("nothing was cut")
			.noneMatch(line -> line.contains("relay_shutting_down") || line.contains("closed for shutdown"));
	}

	@Test
	void aJsonCallStillWithoutItsAnswerAtTheEndOfTheGracePeriodIsAnsweredAsCutByTheRelay() throws Exception {
		TestUpstreams.SCRIPTED.clear();
		TestUpstreams.SCRIPTED.script((request, response) -> Mono.never());
		ConfigurableApplicationContext relay = relay("mcp-relay.shutdown.stream-grace-period=1s");
		RawHttp http = new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
		CompletableFuture<HttpResponse<String>> post = CompletableFuture
			.supplyAsync(() -> http.send(http.post("late", RawHttp.toolsCall("long-json", "slow"))));
		awaitUntil(() -> !TestUpstreams.SCRIPTED.seen().isEmpty(), "the call reached the upstream");
		int logMark = CapturedLogs.all().size();

		relay.close();

		HttpResponse<String> answered = post.get(10, TimeUnit.SECONDS);
		assertThat(answered.statusCode()).as("answered, not left without a response").isEqualTo(503);
		JsonNode error = RawHttp.json(answered.body());
		assertThat(error.path("id").asText()).as("the error answers the call's id").isEqualTo("long-json");
		assertThat(error.at("/error/data/reason").asText()).isEqualTo("relay_shutting_down");
		awaitUntil(() -> CapturedLogs.since(logMark).stream().anyMatch(line -> line.contains("mcp.relay.access")),
				"the call's access-log line");
		List<String> logged = CapturedLogs.since(logMark);
		assertThat(logged).as("logged as the relay's doing, never as the upstream's failure")
			.noneMatch(line -> line.contains("upstream_unreachable") || line.startsWith("WARN")
					|| line.startsWith("ERROR"))
			.anyMatch(line -> line.startsWith("INFO") && line.contains("shut down before the upstream's answer came"))
			.anyMatch(line -> line.contains("mcp.relay.access") && line.contains("outcome=shutdown")
					&& line.contains("reason=relay_shutting_down"));
	}

	/**
	 * A virtual server's call whose member's answer had not come when the grace period ended: the virtual server's
	 * line says what a direct server's says, the relay's shutdown (cold review F: {@code outcome=forwarded status=503}
	 * while the member's line said the shutdown).
	 */
	@Test
	void aVirtualServersCallCutByShutdownIsLoggedAsTheDirectCallIs() throws Exception {
		TestUpstreams.SCRIPTED.clear();
		TestUpstreams.SCRIPTED.scriptWithBody((request, response, body) -> {
			if (body.contains("\"initialize\"")) {
				return ScriptedUpstream.initializeAnswer(response, body, "late", "late-session");
			}
			if (body.contains("\"tools/call\"")) {
				return Mono.never();
			}
			return response.status("GET".equals(request.method().name()) ? 405 : 202).send();
		});
		ConfigurableApplicationContext relay = relay("mcp-relay.virtual-servers.v.members=late",
				"mcp-relay.shutdown.stream-grace-period=1s");
		RawHttp http = new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
		McpSession session = McpSession.open(http, "v");
		CompletableFuture<HttpResponse<String>> post = CompletableFuture
			.supplyAsync(() -> session.post(RawHttp.toolsCall("virtual-long", "late_slow")));
		awaitUntil(() -> TestUpstreams.SCRIPTED.seen().stream().anyMatch(seen -> seen.body().contains("tools/call")),
				"the call reached the member");
		int logMark = CapturedLogs.all().size();

		relay.close();

		HttpResponse<String> answered = post.get(10, TimeUnit.SECONDS);
		assertThat(answered.statusCode()).isEqualTo(503);
		assertThat(RawHttp.messagesOf(answered)).last()
			.satisfies(error -> assertThat(error.at("/error/data/reason").asText()).isEqualTo("relay_shutting_down"));
		awaitUntil(() -> CapturedLogs.since(logMark).stream().anyMatch(line -> line.contains("mcp.relay.access")
				&& line.contains("server=v ")), "the virtual server's access-log line");
		assertThat(CapturedLogs.since(logMark)).as("the member's line and the virtual server's say the same")
			.anyMatch(line -> line.contains("mcp.relay.access") && line.contains("server=late ")
					&& line.contains("outcome=shutdown") && line.contains("reason=relay_shutting_down"))
			.anyMatch(line -> line.contains("mcp.relay.access") && line.contains("server=v ")
					&& line.contains("rpc_method=tools/call") && line.contains("outcome=shutdown")
					&& line.contains("reason=relay_shutting_down"))
			.noneMatch(line -> line.contains("mcp.relay.access") && line.contains("server=v ")
					&& line.contains("outcome=forwarded") && line.contains("rpc_method=tools/call"));
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(ints = { 200, 500 })
	void aBodyRelayedUntouchedThatOutlastsTheGracePeriodIsCutWithIt(int status) throws Exception {
		// a body the relay does not read (text/plain, here with a 200 to a POST of a notification, and with a 500 to a
		// request: a 2xx to a request is read only as JSON or an event stream) trickles a byte at a time, never ending:
		// no real server does this on demand
		TestUpstreams.SCRIPTED.clear();
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(status)
			.header("Content-Type", "text/plain")
			.sendString(Flux.interval(Duration.ofMillis(100)).map(tick -> "x"), StandardCharsets.UTF_8));
		ConfigurableApplicationContext relay = relay("mcp-relay.shutdown.stream-grace-period=1s");
		int port = ((WebServerApplicationContext) relay).getWebServer().getPort();
		String body = status == 200
				? "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}"
				: RawHttp.toolsCall("trickle", "slow");
		try (Socket client = new Socket()) {
			client.connect(new InetSocketAddress("127.0.0.1", port), 5000);
			client.setSoTimeout(20_000);
			client.getOutputStream().write(("POST /mcp/late HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
					+ "Accept: " + RawHttp.ACCEPT_BOTH + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
				.getBytes(StandardCharsets.UTF_8));
			InputStream in = client.getInputStream();
			awaitUntil(() -> !TestUpstreams.SCRIPTED.seen().isEmpty(), "the call reached the upstream");
			int logMark = CapturedLogs.all().size();

			relay.close();
			String received = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);

			assertThat(received).as("the head and part of the body, then the connection closed").startsWith("HTTP/1.1 " + status)
				.contains("\r\n1\r\nx\r\n")
				.as("never the last chunk: the client knows the body is incomplete")
				.doesNotEndWith("0\r\n\r\n");
			awaitUntil(() -> CapturedLogs.since(logMark).stream().anyMatch(line -> line.contains("mcp.relay.access")),
					"the call's access-log line");
			assertThat(CapturedLogs.since(logMark)).as("cut by the relay at the end of its grace period, as its doing")
				.anyMatch(line -> line.startsWith("INFO") && line.contains("cut for shutdown"))
				.anyMatch(line -> line.contains("mcp.relay.access") && line.contains("outcome=shutdown"))
				.as("not left for Spring Boot's graceful shutdown to abort")
				.noneMatch(line -> line.contains("Graceful shutdown aborted"));
		}
	}

	/**
	 * A virtual session's merged GET ends as shutdown begins, as a relayed GET does (shutdown does not wait for it),
	 * and, with the memory store, whose sessions end with the process, each member session is sent its DELETE.
	 */
	@Test
	void shutdownEndsAVirtualSessionsStreamAtOnceAndItsMemberSessions() throws Exception {
		ConfigurableApplicationContext relay = relay("mcp-relay.servers.sdk.url=" + TestUpstreams.SDK.url("/mcp"),
				"mcp-relay.virtual-servers.both.members=sdk", "mcp-relay.shutdown.stream-grace-period=15s");
		RawHttp http = new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
		java.util.Set<String> before = sdkSessions("GET");
		McpSession session = McpSession.open(http, "both");
		awaitUntil(() -> sdkSessions("GET").size() > before.size(), "the relay opened the member's stream");
		java.util.Set<String> members = new java.util.HashSet<>(sdkSessions("GET"));
		members.removeAll(before);
		HttpResponse<InputStream> get = http.open(http.request("both").header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.GET());
		assertThat(get.statusCode()).isEqualTo(200);
		CompletableFuture<String> getBody = CompletableFuture.supplyAsync(() -> RawHttp.readAll(get.body()));

		long start = System.nanoTime();
		relay.close();
		Duration shutdown = Duration.ofNanos(System.nanoTime() - start);

		assertThat(getBody.get(5, TimeUnit.SECONDS)).as("the merged GET stream ended").isNotNull();
		assertThat(shutdown).as("shutdown waited neither for the merged GET nor for the 15 s grace period")
			.isLessThan(Duration.ofSeconds(10));
		assertThat(sdkSessions("DELETE")).as("the member session was ended").containsAll(members);
	}

	/**
	 * A virtual server's call in flight at shutdown gets the grace period a direct server's gets: its member session
	 * is not ended (DELETE) under it, the call's result reaches the client, and the member session is ended after.
	 */
	@Test
	void aVirtualServersCallInFlightAtShutdownFinishesBeforeItsMemberSessionEnds() throws Exception {
		TestUpstreams.SDK.resetProgressGate();
		ConfigurableApplicationContext relay = relay("mcp-relay.servers.sdk.url=" + TestUpstreams.SDK.url("/mcp"),
				"mcp-relay.virtual-servers.both.members=sdk", "mcp-relay.shutdown.stream-grace-period=15s");
		RawHttp http = new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
		java.util.Set<String> before = sdkSessions("POST");
		McpSession session = McpSession.open(http, "both");
		HttpResponse<InputStream> call = http.open(session.request("{\"jsonrpc\":\"2.0\",\"id\":\"long\",\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"sdk_progress\",\"arguments\":{},\"_meta\":"
				+ "{\"progressToken\":\"t\"}}}"));
		assertThat(call.statusCode()).isEqualTo(200);
		CompletableFuture<String> body = CompletableFuture.supplyAsync(() -> RawHttp.readAll(call.body()));
		awaitUntil(() -> TestUpstreams.SDK.seen().stream().anyMatch(seen -> seen.body().contains("\"progress\"")),
				"the call reached the member");
		java.util.Set<String> members = new java.util.HashSet<>(sdkSessions("POST"));
		members.removeAll(before);
		assertThat(members).hasSize(1);
		int logMark = CapturedLogs.all().size();

		CompletableFuture<Void> shutdown = CompletableFuture.runAsync(relay::close);
		awaitUntil(() -> CapturedLogs.since(logMark).stream().anyMatch(line -> line.contains("Shutting down:")),
				"shutdown began");
		int seenAtRelease = TestUpstreams.SDK.seen().size();
		TestUpstreams.SDK.releaseProgress();

		List<JsonNode> messages = RawHttp.sseData(body.get(10, TimeUnit.SECONDS));
		assertThat(messages).as("the call's result reached the client").last().satisfies(message -> assertThat(message
			.at("/result/content/0/text").asText()).as(message.toString()).isEqualTo("done"));
		shutdown.get(10, TimeUnit.SECONDS);
		assertThat(sdkSessions("DELETE")).as("the member session was ended").containsAll(members);
		List<String> logged = CapturedLogs.since(logMark);
		// the member's exchange, whose end the shutdown work waits for: the virtual server's own access line is
		// written as its response completes, which may come after the work began (the client has its answer by then)
		int callEnded = indexOf(logged, line -> line.contains("mcp.relay.access") && line.contains("server=sdk")
				&& line.contains("rpc_method=tools/call"));
		int membersEnded = indexOf(logged, line -> line.contains("their member sessions are sent DELETE"));
		assertThat(membersEnded).as("the member sessions were ended after the call, not as shutdown began: %s", logged)
			.isGreaterThan(callEnded)
			.isGreaterThan(0);
		assertThat(TestUpstreams.SDK.seen().subList(0, seenAtRelease))
			.as("no DELETE of the member session while its call ran")
			.noneMatch(seen -> seen.method().equals("DELETE")
					&& members.contains(seen.headers().getFirst("Mcp-Session-Id")));
	}

	private static int indexOf(List<String> lines, java.util.function.Predicate<String> match) {
		for (int i = 0; i < lines.size(); i++) {
			if (match.test(lines.get(i))) {
				return i;
			}
		}
		return -1;
	}

	private static java.util.Set<String> sdkSessions(String method) {
		return TestUpstreams.SDK.seen()
			.stream()
			.filter(seen -> seen.method().equals(method) && seen.path().equals("/mcp"))
			.map(seen -> seen.headers().getFirst("Mcp-Session-Id"))
			.filter(java.util.Objects::nonNull)
			.collect(java.util.stream.Collectors.toSet());
	}

	/** A relay of its own in front of the scripted upstream ({@code late}), with {@code properties}. */
	private static ConfigurableApplicationContext relay(String... properties) {
		return new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class)
			.properties("server.port=0", "mcp-relay.servers.late.url=" + TestUpstreams.SCRIPTED.url("/mcp"))
			.properties(properties)
			.run();
	}

	private static void awaitUntil(java.util.function.BooleanSupplier condition, String what)
			throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("waited 10s in vain for " + what);
			}
			Thread.sleep(10);
		}
	}

	@Test
	void shutdownClosesOpenStreamsCleanlyAndAnswersPendingRequests() throws Exception {
		TestUpstreams.SDK.resetProgressGate();
		// The SDK server sends a GET stream's headers only with its first event; the scripted upstream holds an
		// open, quiet GET stream the way a server with nothing to say does.
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "text/event-stream")
			.sendString(Flux.concat(Mono.just(": open\n\n"), Mono.never())));
		ConfigurableApplicationContext relay = new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class)
			.properties("server.port=0", "mcp-relay.servers.sdk.url=" + TestUpstreams.SDK.url("/mcp"),
					"mcp-relay.servers.quiet.url=" + TestUpstreams.SCRIPTED.url("/mcp"),
					"mcp-relay.shutdown.stream-grace-period=1s")
			.run();
		RawHttp http = new RawHttp(((WebServerApplicationContext) relay).getWebServer().getPort());
		McpSession session = McpSession.open(http, "sdk");
		HttpResponse<InputStream> get = http.open(http.request("quiet").header("Accept", "text/event-stream").GET());
		HttpResponse<InputStream> post = http.open(session.request("{\"jsonrpc\":\"2.0\",\"id\":\"long\",\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"progress\",\"arguments\":{},\"_meta\":{\"progressToken\":\"t\"}}}"));
		assertThat(get.statusCode()).isEqualTo(200);
		CompletableFuture<String> getBody = CompletableFuture.supplyAsync(() -> RawHttp.readAll(get.body()));
		CompletableFuture<String> postBody = CompletableFuture.supplyAsync(() -> RawHttp.readAll(post.body()));
		int logMark = CapturedLogs.all().size();

		long start = System.nanoTime();
		relay.close();
		Duration shutdown = Duration.ofNanos(System.nanoTime() - start);

		assertThat(getBody.get(5, TimeUnit.SECONDS)).as("the GET stream ended, cleanly").isEqualTo(": open\n\n");
		List<JsonNode> events = RawHttp.sseData(postBody.get(5, TimeUnit.SECONDS));
		assertThat(events).extracting(event -> event.path("method").asText("response"))
			.containsExactly("notifications/progress", "response");
		assertThat(events.get(1).path("id").asText()).isEqualTo("long");
		assertThat(events.get(1).at("/error/data/reason").asText()).isEqualTo("relay_shutting_down");
		assertThat(shutdown).as("shutdown waited for the 1s grace period, not for the 20s shutdown timeout")
			.isLessThan(Duration.ofSeconds(10));
		List<String> logged = CapturedLogs.since(logMark);
		assertThat(logged).as("nothing logged as an error or with a stack trace during shutdown")
			.noneMatch(line -> line.startsWith("ERROR") || line.startsWith("WARN") || line.contains("\tat "));
	}

}
