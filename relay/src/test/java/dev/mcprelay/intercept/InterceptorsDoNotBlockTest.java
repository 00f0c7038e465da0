package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import reactor.core.publisher.Mono;

/**
 * A slow interceptor that waits asynchronously never blocks an event loop, and its wait does not hold up other
 * exchanges. BlockHound (installed for every test by {@code BlockingCallCheckExtension}) watches every non-blocking
 * thread, Reactor Netty's event loops among them; a deliberately blocking interceptor shows that the watch works.
 */
class InterceptorsDoNotBlockTest extends InterceptorIntegrationTest {

	@Test
	void theWatchSeesAnInterceptorThatBlocks() {
		script.on("first", Stage.TOOLS_CALL_REQUEST, call -> {
			sleep(Duration.ofMillis(20));
			return Outcome.proceed();
		});

		HttpResponse<String> response = http().send(http().post("sdk-json", RawHttp.toolsCall(1, "echo")));

		assertThat(RawHttp.json(response.body()).at("/error/code").asInt())
			.as("BlockHound stopped the blocking interceptor, and the relay contained it").isEqualTo(-32603);
		assertThat(CapturedLogs.all()).anySatisfy(line -> assertThat(line).contains("Interceptor 'first'")
			.contains("BlockingOperationError")
			.contains("java.lang.Thread.sleep"));
	}

	@Test
	void slowAsynchronousInterceptorsBlockNoThreadAndHoldUpNoOtherExchange() {
		McpSession sse = session("sdk");
		upstream.releaseProgress();
		Duration pause = Duration.ofMillis(300);
		script.on("first", Stage.USER_REQUEST, message -> Mono.delay(pause).then(Outcome.proceed()));
		script.on("first", Stage.TOOLS_CALL_REQUEST, call -> Mono.delay(pause).then(Outcome.proceed()));
		script.on("first", Stage.REMOTE_MESSAGE, message -> Mono.delay(pause).then(Outcome.proceed()));
		script.on("first", Stage.OTHER_RESPONSE, response -> Mono.delay(pause).then(Outcome.proceed()));

		List<CompletableFuture<HttpResponse<String>>> exchanges = new ArrayList<>();
		for (int i = 0; i < 16; i++) {
			String body = RawHttp.toolsCall(i, "echo");
			exchanges.add(CompletableFuture.supplyAsync(() -> http().send(http().post("sdk-json", body))));
		}
		HttpResponse<String> stream = sse.post("{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"progress\",\"arguments\":{},\"_meta\":{\"progressToken\":\"t\"}}}");
		List<HttpResponse<String>> answers = exchanges.stream().map(CompletableFuture::join).toList();

		assertThat(answers).allSatisfy(answer -> assertThat(RawHttp.json(answer.body()).has("result"))
			.as(answer.body()).isTrue());
		List<JsonNode> events = RawHttp.sseData(stream.body());
		assertThat(events).extracting(event -> event.path("method").asText("response"))
			.as("every event passed the slow interceptor, in order")
			.containsExactly("notifications/progress", "notifications/progress", "notifications/progress", "response");
		assertThat(CapturedLogs.all()).as("no blocking call on a non-blocking thread")
			.noneSatisfy(line -> assertThat(line).contains("BlockingOperationError"));
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
