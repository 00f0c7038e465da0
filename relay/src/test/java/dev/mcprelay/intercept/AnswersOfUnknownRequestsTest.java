package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.ErrorInterceptor;
import dev.mcprelay.api.McpResponse;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.ResponseInterceptor;
import dev.mcprelay.api.ToolsCallResponse;
import dev.mcprelay.api.ToolsCallResponseInterceptor;
import dev.mcprelay.api.UpstreamError;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;

/**
 * Answers whose request the relay does not know (on a GET stream, or a stray on a POST), with exactly the interceptors
 * an operator would have: on {@code audited}, an error and a catch-all response interceptor that only look (an audit);
 * on {@code redacted}, a {@code tools/call} response interceptor that redacts every tool result. A legitimate answer
 * reaches the client after the stages that take any method; one that could be a tool's result never passes the
 * redactor unseen. The upstream is scripted: it pushes answers on a GET stream as a server resuming a stream would.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(AnswersOfUnknownRequestsTest.Interceptors.class)
class AnswersOfUnknownRequestsTest {

	private static final List<String> AUDITED = new CopyOnWriteArrayList<>();

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	@TestConfiguration(proxyBeanMethods = false)
	static class Interceptors {

		@Bean
		Audit audit() {
			return new Audit();
		}

		@Bean
		ToolsCallResponseInterceptor redactor() {
			return new ToolsCallResponseInterceptor() {

				@Override
				public String name() {
					return "redactor";
				}

				@Override
				public boolean appliesTo(String server) {
					return "redacted".equals(server);
				}

				@Override
				public Mono<Outcome> interceptToolsCallResponse(ToolsCallResponse response) {
					response.replaceResult(Map.of("content", List.of(Map.of("type", "text", "text", "[redacted]"))));
					return Outcome.proceed();
				}

			};
		}

	}

	/** Looks at every error and every answer of a method without a typed stage; changes nothing. */
	static class Audit implements ErrorInterceptor, ResponseInterceptor {

		@Override
		public String name() {
			return "audit";
		}

		@Override
		public boolean appliesTo(String server) {
			return "audited".equals(server);
		}

		@Override
		public Mono<Outcome> interceptError(UpstreamError error) {
			AUDITED.add("error " + error.method() + " " + error.id());
			return Outcome.proceed();
		}

		@Override
		public Mono<Outcome> interceptResponse(McpResponse response) {
			AUDITED.add("response " + response.method() + " " + response.id());
			return Outcome.proceed();
		}

	}

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.audited.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
		registry.add("mcp-relay.servers.redacted.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
	}

	@BeforeEach
	void reset() {
		AUDITED.clear();
		TestUpstreams.SCRIPTED.clear();
	}

	@Test
	void legitimateAnswersOnAGetStreamReachTheClientAfterTheStagesThatTakeAnyMethod() {
		double before = unmatched("audited", "relayed");
		String body = pushedOnGet("audited",
				"{\"jsonrpc\":\"2.0\",\"id\":\"client-req-7\",\"error\":{\"code\":-32000,\"message\":\"failed\"}}",
				"{\"jsonrpc\":\"2.0\",\"id\":\"client-req-8\",\"result\":{}}",
				"{\"jsonrpc\":\"2.0\",\"id\":\"client-req-9\",\"result\":{\"completion\":{\"values\":[\"a\"]}}}");

		assertThat(RawHttp.sseData(body)).extracting(answer -> answer.get("id").asText())
			.as("an audit that only looks refuses nothing").containsExactly("client-req-7", "client-req-8", "client-req-9");
		assertThat(AUDITED).as("each met the stage that takes any method, its method unknown")
			.containsExactly("error null \"client-req-7\"", "response null \"client-req-8\"",
					"response null \"client-req-9\"");
		assertThat(unmatched("audited", "relayed") - before).isEqualTo(3);
	}

	@Test
	void aResultThatCouldBeAToolsResultNeverPassesTheToolResultStageUnseen() {
		double before = unmatched("redacted", "dropped");
		String body = pushedOnGet("redacted",
				"{\"jsonrpc\":\"2.0\",\"id\":77,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"the secret\"}]}}",
				"{\"jsonrpc\":\"2.0\",\"id\":78,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"the secret\"}],"
						+ "\"tools\":[]}}",
				"{\"jsonrpc\":\"2.0\",\"id\":81,\"result\":{\"structuredContent\":{\"secret\":\"the secret\"}}}",
				"{\"jsonrpc\":\"2.0\",\"id\":82,\"result\":{}}");

		assertThat(body).doesNotContain("the secret");
		List<JsonNode> relayed = RawHttp.sseData(body);
		assertThat(relayed).extracting(answer -> answer.get("id").asInt())
			.as("a tool's result by its shape meets the redactor; a shape that could be a tool's without telling is "
					+ "dropped; an empty result, no tool's output, goes on")
			.containsExactly(77, 82);
		assertThat(relayed.get(0).at("/result/content/0/text").asText()).isEqualTo("[redacted]");
		assertThat(unmatched("redacted", "dropped") - before).isEqualTo(2);
	}

	@Test
	void aStrayAnswerInAJsonAnswerNeverPassesTheToolResultStage() {
		// [tools/call 5, ping 6], answered with a stray {content, tools} under 424242 first
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.sendString(Mono.just("[{\"jsonrpc\":\"2.0\",\"id\":424242,\"result\":{\"content\":[{\"type\":\"text\","
					+ "\"text\":\"the stray secret\"}],\"tools\":[]}},{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":"
					+ "[{\"type\":\"text\",\"text\":\"the secret\"}]}},{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{}}]")));
		RawHttp http = new RawHttp(port);

		HttpResponse<String> response = http.send(http.post("redacted", "[" + RawHttp.toolsCall(5, "ambiguous_json")
				+ ",{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}]"));

		assertThat(response.body()).doesNotContain("secret");
		assertThat(RawHttp.messagesOf(response)).extracting(answer -> answer.get("id").asInt()).containsExactly(5, 6);
	}

	@Test
	void aRequestTheUpstreamsJsonAnswerLeftUnansweredGetsAnErrorNeverSilence() {
		// the upstream answers every request under id 1: the client's id 7 is not answered by it
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")));
		RawHttp http = new RawHttp(port);

		HttpResponse<String> response = http.send(http.post("redacted", RawHttp.toolsCall(7, "echo")));

		assertThat(response.statusCode()).as("a request is never answered 202: %s", response.body()).isEqualTo(502);
		JsonNode answer = RawHttp.json(response.body());
		assertThat(answer.get("id").asInt()).isEqualTo(7);
		assertThat(answer.at("/error/data/reason").asText()).isEqualTo("upstream_invalid_response");

		HttpResponse<String> batch = http.send(http.post("redacted", "[" + RawHttp.toolsCall(1, "echo")
				+ ",{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]"));
		assertThat(RawHttp.messagesOf(batch)).as("in a batch, the answered request keeps its answer")
			.extracting(message -> message.get("id").asInt() + (message.has("error") ? " error" : " result"))
			.containsExactlyInAnyOrder("1 result", "2 error");
	}

	/** What a client's GET stream on {@code server} gets when the upstream pushes {@code messages} on it. */
	private String pushedOnGet(String server, String... messages) {
		StringBuilder events = new StringBuilder();
		for (int i = 0; i < messages.length; i++) {
			events.append("id: g-").append(i).append("\nevent: message\ndata: ").append(messages[i]).append("\n\n");
		}
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "text/event-stream")
			.sendString(Mono.just(events.toString())));
		RawHttp http = new RawHttp(port);
		return http.send(http.request(server)
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", "s-get")
			.GET()).body();
	}

	private double unmatched(String server, String handling) {
		Counter counter = registry.find("mcp.relay.upstream.unmatched").tag("server", server).tag("handling", handling)
			.counter();
		return counter == null ? 0 : counter.count();
	}

}
