package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Shutting the relay down closes its open streams cleanly: the GET stream ends at once, the POST stream after its
 * grace period with an error event for the request still unanswered, and shutdown does not wait for Spring Boot's
 * whole graceful-shutdown timeout. Nothing is logged as an error. The test runs its own relay, so that it can stop it.
 */
public class GracefulShutdownTest {

	@AfterEach
	void release() {
		TestUpstreams.SDK.releaseProgress();
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
