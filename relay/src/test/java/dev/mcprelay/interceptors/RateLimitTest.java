package dev.mcprelay.interceptors;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.TestUpstreams;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;

/**
 * {@code mcp-relay.rate-limits} in memory, in front of the SDK's MCP server: a tool rule counts calls of its tools
 * only, a server rule every request; over the limit a request alone gets 429 with {@code Retry-After} and a JSON-RPC
 * error saying which rule and how long to wait, and inside a batch it is one error among the upstream's answers.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RateLimitTest {

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	static final ScriptedUpstream SCRIPTED = new ScriptedUpstream();

	@AfterAll
	static void stop() {
		SCRIPTED.close();
	}

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.scripted.url", () -> SCRIPTED.url("/mcp"));
		registry.add("mcp-relay.rate-limits[2].name", () -> "scripted-echo");
		registry.add("mcp-relay.rate-limits[2].match.server", () -> "scripted");
		registry.add("mcp-relay.rate-limits[2].match.tool", () -> "echo");
		registry.add("mcp-relay.rate-limits[2].limit", () -> "1");
		registry.add("mcp-relay.rate-limits[2].period", () -> "1h");
		registry.add("mcp-relay.servers.tools.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.requests.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.rate-limits[0].name", () -> "echo-calls");
		registry.add("mcp-relay.rate-limits[0].match.server", () -> "tools");
		registry.add("mcp-relay.rate-limits[0].match.tool", () -> "ech*");
		registry.add("mcp-relay.rate-limits[0].limit", () -> "2");
		registry.add("mcp-relay.rate-limits[0].period", () -> "1h");
		registry.add("mcp-relay.rate-limits[1].match.server", () -> "requests");
		registry.add("mcp-relay.rate-limits[1].per", () -> "server");
		registry.add("mcp-relay.rate-limits[1].limit", () -> "3");
		registry.add("mcp-relay.rate-limits[1].period", () -> "1h");
	}

	@Test
	void aToolRuleCountsItsToolsAndRefusesWith429AndRetryAfter() {
		RawHttp http = new RawHttp(port);
		assertThat(http.send(http.post("tools", RawHttp.toolsCall(1, "echo"))).statusCode()).isEqualTo(200);
		assertThat(http.send(http.post("tools", RawHttp.toolsCall(2, "echo"))).statusCode()).isEqualTo(200);
		for (int i = 0; i < 3; i++) {
			assertThat(http.send(http.post("tools", RawHttp.toolsCall(10 + i, "whoami"))).statusCode())
				.as("another tool is not counted").isEqualTo(200);
		}

		HttpResponse<String> limited = http.send(http.post("tools", RawHttp.toolsCall(3, "echo")));

		assertThat(limited.statusCode()).isEqualTo(429);
		long retryAfter = Long.parseLong(limited.headers().firstValue("Retry-After").orElseThrow());
		assertThat(retryAfter).isBetween(1L, 1800L);
		JsonNode error = RawHttp.json(limited.body());
		assertThat(error.path("id").asInt()).isEqualTo(3);
		assertThat(error.at("/error/code").asInt()).isEqualTo(-32000);
		assertThat(error.at("/error/data/reason").asText()).isEqualTo("rate_limited");
		assertThat(error.at("/error/data/rule").asText()).isEqualTo("echo-calls");
		assertThat(error.at("/error/data/retryAfterSeconds").asLong()).isEqualTo(retryAfter);
		java.util.List<String> fields = new java.util.ArrayList<>();
		error.at("/error/data").fieldNames().forEachRemaining(fields::add);
		assertThat(fields).as("in the order securing.md names them, on every replica")
			.containsExactly("reason", "rule", "retryAfterSeconds");
		assertThat(error.at("/error/message").asText()).contains("2 per 1h");
		assertThat(registry.find(RelayMeters.RATE_LIMIT_REJECTIONS).tags("rule", "echo-calls", "server", "tools")
			.counter().count()).isEqualTo(1);

	}

	@Test
	void insideABatchTheRefusalIsOneAnswerAmongTheUpstreamsOnJsonAndSseAlike() {
		RawHttp http = new RawHttp(port);
		SCRIPTED.script((request, response) -> response.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")));
		assertThat(http.send(http.post("scripted", RawHttp.toolsCall(1, "echo"))).statusCode()).isEqualTo(200);
		String batch = "[" + RawHttp.toolsCall(20, "echo") + "," + RawHttp.toolsCall(21, "other") + "]";

		SCRIPTED.script((request, response) -> response.header("Content-Type", "application/json")
			.sendString(Mono.just("[{\"jsonrpc\":\"2.0\",\"id\":21,\"result\":{}}]")));
		HttpResponse<String> json = http.send(http.post("scripted", batch));
		SCRIPTED.script((request, response) -> response.header("Content-Type", "text/event-stream")
			.sendString(Mono.just("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":21,\"result\":{}}\n\n")));
		HttpResponse<String> sse = http.send(http.post("scripted", batch));

		for (HttpResponse<String> answer : List.of(json, sse)) {
			assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
			List<JsonNode> messages = RawHttp.messagesOf(answer);
			assertThat(messages).hasSize(2);
			assertThat(messages).filteredOn(message -> message.path("id").asInt() == 20).singleElement()
				.satisfies(message -> assertThat(message.at("/error/data/reason").asText()).isEqualTo("rate_limited"));
			assertThat(messages).filteredOn(message -> message.path("id").asInt() == 21).singleElement()
				.satisfies(message -> assertThat(message.has("result")).isTrue());
		}
		assertThat(sse.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/event-stream");
		assertThat(SCRIPTED.lastSeen().body()).as("only the call within the limit went upstream")
			.doesNotContain("\"id\":20").contains("\"id\":21");
	}

	@Test
	void aServerRuleCountsEveryRequestButNotNotifications() {
		RawHttp http = new RawHttp(port);
		String notification = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
		for (int i = 0; i < 3; i++) {
			assertThat(http.send(http.post("requests", notification)).statusCode()).isEqualTo(202);
		}
		assertThat(http.send(http.post("requests", RawHttp.toolsCall(1, "echo"))).statusCode()).isEqualTo(200);
		assertThat(http.send(http.post("requests", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"))
			.statusCode()).isEqualTo(200);
		assertThat(http.send(http.post("requests", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}")).statusCode())
			.isEqualTo(200);

		HttpResponse<String> limited = http.send(http.post("requests", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}"));

		assertThat(limited.statusCode()).isEqualTo(429);
		assertThat(RawHttp.json(limited.body()).at("/error/data/rule").asText()).isEqualTo("rule-1");
	}

}
