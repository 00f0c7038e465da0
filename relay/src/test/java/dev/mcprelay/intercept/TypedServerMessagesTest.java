package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.ListChangedNotification;
import dev.mcprelay.api.LoggingMessageNotification;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.ProgressNotification;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.ResourceUpdatedNotification;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;

/**
 * The typed responses of prompts/get, resources/read and resources/templates/list, and the typed server
 * notifications: each setter changes what the client gets and leaves every field it does not touch (a vendor's
 * extension included) as the upstream sent it; a notification can be changed, dropped or rejected.
 */
class TypedServerMessagesTest extends InterceptorIntegrationTest {

	@Test
	void promptsGetResourcesReadAndTemplatesListHaveSettersThatKeepUnknownFields() {
		answer("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"description\":\"A greeting\",\"x-vendor\":7,"
				+ "\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"secret plan\"}}]}}");
		script.on("first", Stage.PROMPTS_GET_RESPONSE, response -> {
			assertThat(response.promptName()).isEqualTo("greeting");
			assertThat(response.messages()).hasSize(1);
			response.setMessages(List.of(new McpSchema.PromptMessage(McpSchema.Role.USER,
					new McpSchema.TextContent("[redacted]"))));
			response.setDescription("A redacted greeting");
			return Outcome.proceed();
		});
		JsonNode prompt = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\",\"params\":{\"name\":\"greeting\"}}");
		assertThat(prompt.at("/result/messages/0/content/text").asText()).isEqualTo("[redacted]");
		assertThat(prompt.at("/result/description").asText()).isEqualTo("A redacted greeting");
		assertThat(prompt.at("/result/x-vendor").asInt()).isEqualTo(7);

		answer("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"x-vendor\":8,\"contents\":[{\"uri\":\"memo://one\","
				+ "\"mimeType\":\"text/plain\",\"text\":\"password=hunter2\"}]}}");
		script.on("first", Stage.RESOURCES_READ_RESPONSE, response -> {
			assertThat(response.uri()).isEqualTo("memo://one");
			assertThat(((McpSchema.TextResourceContents) response.contents().get(0)).text()).contains("hunter2");
			response.setContents(List.of(new McpSchema.TextResourceContents("memo://one", "text/plain", "[redacted]")));
			return Outcome.proceed();
		});
		JsonNode read = post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":{\"uri\":\"memo://one\"}}");
		assertThat(read.at("/result/contents/0/text").asText()).isEqualTo("[redacted]");
		assertThat(read.at("/result/x-vendor").asInt()).isEqualTo(8);

		answer("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"resourceTemplates\":[{\"uriTemplate\":\"memo://{id}\","
				+ "\"name\":\"memo\",\"x-kept\":true},{\"uriTemplate\":\"secret://{id}\",\"name\":\"secret\"}]}}");
		script.on("first", Stage.RESOURCE_TEMPLATES_LIST_RESPONSE, response -> {
			response.removeResourceTemplatesIf(template -> template.uriTemplate().startsWith("secret:"));
			return Outcome.proceed();
		});
		JsonNode templates = post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/templates/list\"}");
		assertThat(templates.at("/result/resourceTemplates")).hasSize(1);
		assertThat(templates.at("/result/resourceTemplates/0/x-kept").asBoolean()).as("kept as received").isTrue();
	}

	@Test
	void serverNotificationsAreTypedAndCanBeChangedDroppedOrRejected() {
		List<String> seen = new CopyOnWriteArrayList<>();
		TestUpstreams.SCRIPTED.script((request, response) -> response.header("Content-Type", "text/event-stream")
			.sendString(Mono.just(event("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
					+ "{\"progressToken\":\"t\",\"progress\":1,\"total\":2,\"message\":\"reading /home/alice\",\"x\":1}}")
					+ event("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"debug\","
							+ "\"logger\":\"db\",\"data\":\"SELECT * FROM users\"}}")
					+ event("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}")
					+ event("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":"
							+ "{\"uri\":\"secret://x\"}}")
					+ event("{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"content\":[]}}"))));
		script.on("first", Stage.SERVER_NOTIFICATION, notification -> {
			seen.add(notification.getClass().getSimpleName() + " " + notification.method());
			if (notification instanceof ProgressNotification progress) {
				assertThat(progress.progress()).isEqualTo(1.0);
				assertThat(progress.total()).isEqualTo(2.0);
				progress.setProgressMessage("reading");
			}
			if (notification instanceof LoggingMessageNotification log && "debug".equals(log.level())) {
				return Outcome.drop();
			}
			if (notification instanceof ListChangedNotification changed) {
				assertThat(changed.list()).isEqualTo("tools");
			}
			if (notification instanceof ResourceUpdatedNotification updated && updated.uri().startsWith("secret:")) {
				return Outcome.reject(RejectError.policy("not for you"));
			}
			return Outcome.proceed();
		});

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(9, "work")));

		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).extracting(message -> message.path("method").asText(""))
			.containsExactly("notifications/progress", "notifications/tools/list_changed", "notifications/message", "");
		assertThat(messages.get(0).at("/params/message").asText()).isEqualTo("reading");
		assertThat(messages.get(0).at("/params/x").asInt()).as("untouched fields stay").isEqualTo(1);
		assertThat(messages.get(2).at("/params/level").asText()).as("the rejection's notice").isEqualTo("error");
		assertThat(messages.get(2).at("/params/data/rejectedMethod").asText())
			.isEqualTo("notifications/resources/updated");
		assertThat(response.body()).doesNotContain("SELECT * FROM users");
		assertThat(seen).containsExactly("ProgressNotification notifications/progress",
				"LoggingMessageNotification notifications/message",
				"ListChangedNotification notifications/tools/list_changed",
				"ResourceUpdatedNotification notifications/resources/updated");
	}

	private static String event(String data) {
		return "event: message\ndata: " + data + "\n\n";
	}

	private void answer(String json) {
		TestUpstreams.SCRIPTED.script((request, response) -> response.header("Content-Type", "application/json")
			.sendString(Mono.just(json)));
	}

	private JsonNode post(String body) {
		HttpResponse<String> response = http().send(http().post("scripted", body));
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return RawHttp.json(response.body());
	}

}
