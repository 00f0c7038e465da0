package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * An answer to a call the upstream already ran is never refused for want of memory: four concurrent
 * {@code tools/call}s whose answers are 6 MB each, held at once by a relay whose budget for bodies is 14 MB
 * ({@code max-buffered-bodies}), are all answered whole, where a refusal would have told the client to send again a
 * call that had run ({@code relay_overloaded}, "try again shortly", upstream status 200). The answers count in the
 * budget while they are held. The upstream sends each answer's first half, and the second halves only once the relay
 * holds all four first halves, so that all four are held at once.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "mcp-relay.max-buffered-bodies=14MB", "mcp-relay.security.mode=none" })
class AnswersPastTheBudgetTest {

	private static final ScriptedUpstream LARGE = new ScriptedUpstream();

	private static final int TEXT = 6_000_000;

	@LocalServerPort
	int port;

	@Autowired
	BufferedBodies bodies;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.large.url", () -> LARGE.url("/mcp"));
		registry.add("mcp-relay.servers.large.max-buffered-body", () -> "7MB");
	}

	@AfterAll
	static void stop() {
		LARGE.close();
	}

	@Test
	void anAnswerToACallAlreadyForwardedIsNeverRefusedForWantOfMemory() throws Exception {
		Sinks.Empty<Void> secondHalves = Sinks.empty();
		LARGE.scriptWithBody((request, response, body) -> {
			String answer = "{\"jsonrpc\":\"2.0\",\"id\":" + RawHttp.json(body).get("id") + ",\"result\":{\"content\":"
					+ "[{\"type\":\"text\",\"text\":\"" + "x".repeat(TEXT) + "\"}]}}";
			int half = answer.length() / 2;
			return response.status(200)
				.header("Content-Type", "application/json")
				.header("Content-Length", String.valueOf(answer.length()))
				.sendString(Flux.concat(Mono.just(answer.substring(0, half)),
						secondHalves.asMono().then(Mono.fromSupplier(() -> answer.substring(half)))))
				.then();
		});
		int mark = CapturedLogs.all().size();
		RawHttp http = new RawHttp(port);
		List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
		for (int id = 1; id <= 4; id++) {
			int call = id;
			calls.add(CompletableFuture.supplyAsync(() -> http.send(http.post("large", RawHttp.toolsCall(call, "read")))));
		}
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(bodies.held())
			.as("the four first halves held at once").isGreaterThanOrEqualTo(4L * TEXT / 2));
		secondHalves.tryEmitEmpty();

		for (CompletableFuture<HttpResponse<String>> call : calls) {
			HttpResponse<String> response = call.get(30, TimeUnit.SECONDS);
			assertThat(response.statusCode()).as("answered whole: %s", response.body().length() > 300
					? response.body().substring(0, 300) : response.body()).isEqualTo(200);
			JsonNode answer = RawHttp.json(response.body());
			assertThat(answer.at("/result/content/0/text").asText()).hasSize(TEXT);
		}
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(CapturedLogs.since(mark))
			.as("each logged as forwarded")
			.filteredOn(line -> line.contains("mcp.relay.access") && line.contains("server=large"))
			.hasSize(4)
			.allMatch(line -> line.contains("status=200 upstream_status=200 outcome=forwarded")));
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(bodies.held())
			.as("every exchange ended: nothing held").isZero());
	}

}
