package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Mono;

/**
 * The requests of one session reach the upstream in the order the relay received them, and a GET stream the client
 * opens right after {@code notifications/initialized} is open upstream before the session's next call runs there. The
 * scripted upstream notes when each request arrived and when it answered a GET's headers.
 */
class SessionOrderThroughRelayTest extends InterceptorIntegrationTest {

	/** Within {@link SessionOrder#GET_HEADERS_GRACE}, so the relay waits for the headers themselves. */
	private static final Duration GET_HEADERS_DELAY = Duration.ofMillis(30);

	/** What the upstream saw, in order: "arrived POST 2", "headers GET", ... */
	private final List<String> upstreamLog = new CopyOnWriteArrayList<>();

	@BeforeEach
	void scriptUpstream() {
		TestUpstreams.SCRIPTED.scriptWithBody((request, response, body) -> {
			String method = request.method().name();
			if (method.equals("GET")) {
				note("arrived GET");
				return Mono.delay(GET_HEADERS_DELAY)
					.doOnNext(tick -> note("headers GET"))
					.then(response.status(200).header("Content-Type", "text/event-stream").sendHeaders().then())
					.then(Mono.delay(Duration.ofMillis(200)))
					.then();
			}
			if (body.contains("notifications/initialized")) {
				note("arrived initialized");
				return response.status(202).send();
			}
			String id = RawHttp.json(body).path("id").asText();
			note("arrived POST " + id);
			return response.status(200)
				.header("Content-Type", "application/json")
				.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"content\":[]}}"))
				.then();
		});
	}

	@Test
	void aPostSentAfterAGetReachesTheUpstreamOnlyOnceTheGetStreamIsOpenThere() throws Exception {
		CompletableFuture<HttpResponse<InputStream>> stream = openGet("session-a");
		awaitNote("arrived GET");

		HttpResponse<String> call = post("session-a", RawHttp.toolsCall(1, "echo"));

		assertThat(call.statusCode()).isEqualTo(200);
		assertThat(upstreamLog).as("the POST waited for the upstream to answer the earlier GET's headers")
			.containsSubsequence("arrived GET", "headers GET", "arrived POST 1");
		stream.get(5, TimeUnit.SECONDS).body().close();
	}

	@Test
	void aLaterPostNeverOvertakesAnEarlierOneThatAnInterceptorHolds() throws Exception {
		script.on("first", Stage.USER_REQUEST, message -> "1".equals(message.id().asText())
				? Mono.delay(Duration.ofMillis(400)).doOnNext(tick -> note("let go of POST 1")).then(Outcome.proceed())
				: Outcome.proceed());

		CompletableFuture<HttpResponse<String>> first = CompletableFuture
			.supplyAsync(() -> post("session-b", RawHttp.toolsCall(1, "echo")));
		awaitCall("1");
		HttpResponse<String> second = post("session-b", RawHttp.toolsCall(2, "echo"));

		assertThat(first.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		assertThat(second.statusCode()).isEqualTo(200);
		assertThat(upstreamLog).as("the later POST reached the upstream only after the earlier one went on its way")
			.containsSubsequence("let go of POST 1", "arrived POST 2")
			.containsExactlyInAnyOrder("let go of POST 1", "arrived POST 1", "arrived POST 2");
	}

	@Test
	void otherSessionsAreNotHeldBackBySlowOne() throws Exception {
		script.on("first", Stage.USER_REQUEST, message -> "1".equals(message.id().asText())
				? Mono.delay(Duration.ofMillis(400)).then(Outcome.proceed()) : Outcome.proceed());

		CompletableFuture<HttpResponse<String>> slow = CompletableFuture
			.supplyAsync(() -> post("session-c", RawHttp.toolsCall(1, "echo")));
		awaitCall("1");
		HttpResponse<String> other = post("session-d", RawHttp.toolsCall(2, "echo"));

		assertThat(other.statusCode()).isEqualTo(200);
		assertThat(slow.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		assertThat(upstreamLog).as("another session's request went while the first was held")
			.containsExactly("arrived POST 2", "arrived POST 1");
	}

	@Test
	void aCallRightAfterInitializedLetsTheClientsGetStreamOpenFirst() throws Exception {
		assertThat(post("session-e", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode())
			.isEqualTo(202);

		// The client's GET and its first call leave together; here the call even reaches the relay first.
		CompletableFuture<HttpResponse<String>> call = CompletableFuture
			.supplyAsync(() -> post("session-e", RawHttp.toolsCall(3, "echo")));
		Thread.sleep(5);
		CompletableFuture<HttpResponse<InputStream>> stream = openGet("session-e");

		assertThat(call.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		assertThat(upstreamLog).as("the upstream had the GET stream open before the call arrived")
			.containsSubsequence("arrived GET", "headers GET", "arrived POST 3");
		stream.get(5, TimeUnit.SECONDS).body().close();
	}

	@Test
	void aClientThatOpensNoGetStreamIsServedAfterAShortGrace() {
		assertThat(post("session-f", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode())
			.isEqualTo(202);

		HttpResponse<String> call = post("session-f", RawHttp.toolsCall(4, "echo"));

		assertThat(call.statusCode()).isEqualTo(200);
		assertThat(upstreamLog).containsExactly("arrived initialized", "arrived POST 4");
	}

	private void note(String event) {
		upstreamLog.add(event);
	}

	private void awaitNote(String event) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (!upstreamLog.contains(event) && System.nanoTime() < deadline) {
			Thread.sleep(5);
		}
		assertThat(upstreamLog).contains(event);
	}

	private void awaitCall(String id) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (script.calls().stream().noneMatch(call -> id.equals(call.id())) && System.nanoTime() < deadline) {
			Thread.sleep(5);
		}
	}

	private HttpResponse<String> post(String session, String body) {
		return http().send(http().post("scripted", body).header("Mcp-Session-Id", session));
	}

	private CompletableFuture<HttpResponse<InputStream>> openGet(String session) {
		return CompletableFuture.supplyAsync(() -> http()
			.open(http().request("scripted").header("Accept", "text/event-stream").header("Mcp-Session-Id", session).GET()));
	}

}
