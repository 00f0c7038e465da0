package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.RawHttp;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * An interceptor may answer a request with notifications ahead of its result ({@code Outcome.respond(notifications,
 * result)}), as built-in tool search will: a client that accepts {@code text/event-stream} gets them as SSE events,
 * notification first, result last; a client that accepts only JSON gets the result alone. Nothing goes upstream.
 */
class StreamedEarlyAnswerTest extends InterceptorIntegrationTest {

	private void answerWithAListChangeFirst() {
		script.on("first", Stage.TOOLS_CALL_REQUEST, call -> Outcome.respond(
				List.of(Outcome.notification("notifications/tools/list_changed", null),
						Outcome.notification("notifications/message", Map.of("level", "info", "data", "found 2 tools"))),
				McpSchema.CallToolResult.builder().addTextContent("2 tools added").build()));
	}

	@Test
	void aClientThatAcceptsAStreamGetsTheNotificationsThenTheResult() {
		answerWithAListChangeFirst();
		int before = upstream.seen().size();

		HttpResponse<String> response = http().send(http().post("sdk-json", RawHttp.toolsCall(4, "search_available_tools")));

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/event-stream");
		List<JsonNode> events = RawHttp.sseData(response.body());
		assertThat(events).extracting(event -> event.path("method").asText(""))
			.containsExactly("notifications/tools/list_changed", "notifications/message", "");
		assertThat(events.get(0).has("params")).as("no params: none were given").isFalse();
		assertThat(events.get(2).path("id").asInt()).isEqualTo(4);
		assertThat(events.get(2).at("/result/content/0/text").asText()).isEqualTo("2 tools added");
		assertThat(upstream.seen()).as("nothing went upstream").hasSize(before);
	}

	@Test
	void aClientThatAcceptsOnlyJsonGetsTheResultAlone() {
		answerWithAListChangeFirst();

		HttpResponse<String> response = http().send(http().request("sdk-json")
			.header("Content-Type", "application/json")
			.header("Accept", "application/json")
			.POST(java.net.http.HttpRequest.BodyPublishers.ofString(RawHttp.toolsCall(5, "search_available_tools"))));

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/json");
		JsonNode body = RawHttp.json(response.body());
		assertThat(body.path("id").asInt()).isEqualTo(5);
		assertThat(body.at("/result/content/0/text").asText()).isEqualTo("2 tools added");
	}

	@Test
	void aNotificationMustBeANotification() {
		org.assertj.core.api.Assertions.assertThatThrownBy(() -> Outcome.respond(
				List.of(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("id", 1)),
				Map.of()))
			.isInstanceOf(IllegalArgumentException.class);
	}

}
