package dev.mcprelay.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * The scan that lets a notification pass unread accepts exactly what the full parser accepts as a notification, and
 * sends everything else (requests, responses, anything malformed) to the full parse.
 */
class NotificationScanTest {

	@Test
	void plainNotificationsPass() {
		for (String json : List.of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}",
				"{\"method\":\"notifications/initialized\",\"jsonrpc\":\"2.0\"}",
				"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":[1,2],\"_meta\":{\"x\":[{}]}}",
				" {\"jsonrpc\":\"2.0\",\"method\":\"m\"} ")) {
			assertThat(NotificationScan.isPlainNotification(json)).as(json).isTrue();
			assertThat(JsonRpcParserAgrees.isNotification(json)).as("the full parser agrees: " + json).isTrue();
		}
	}

	@Test
	void everythingElseTakesTheFullParse() {
		for (String json : List.of("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sampling/createMessage\"}",
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{}}",
				"{\"jsonrpc\":\"1.0\",\"method\":\"m\"}", "{\"method\":\"m\"}", "{\"jsonrpc\":\"2.0\",\"method\":\"\"}",
				"{\"jsonrpc\":\"2.0\",\"method\":7}", "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":\"x\"}",
				"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"method\":\"n\"}", "{\"jsonrpc\":\"2.0\",\"method\":\"m\"} {}",
				"[{\"jsonrpc\":\"2.0\",\"method\":\"m\"}]", "{\"jsonrpc\":\"2.0\",\"method\":\"m\"", "not json", "",
				"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"a\":}}")) {
			assertThat(NotificationScan.isPlainNotification(json)).as(json).isFalse();
		}
	}

	@Test
	void aMessageWithoutAnIdThatNamesARequestMethodTakesTheFullParse() {
		// the full path drops it; relayed unread, it would reach a client that executes what it is sent
		for (String json : List.of("{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}",
				"{\"jsonrpc\":\"2.0\",\"method\":\"sampling\\/createMessage\"}",
				"{\"method\":\"ping\",\"jsonrpc\":\"2.0\"}")) {
			assertThat(NotificationScan.isPlainNotification(json)).as(json).isFalse();
			assertThat(NotificationScan.isPlainNotification(json.getBytes(java.nio.charset.StandardCharsets.UTF_8), 0,
					json.length())).as(json).isFalse();
		}
		assertThat(NotificationScan.isPlainNotification("{\"jsonrpc\":\"2.0\",\"method\":\" tools/call\"}"))
			.as("a method MCP does not define is a notification like any other")
			.isTrue();
	}

	/** What {@link JsonRpcParser} makes of a message. */
	private static final class JsonRpcParserAgrees {

		static boolean isNotification(String json) {
			try {
				JsonRpcPayload payload = JsonRpcParser.parse(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
				return !payload.batch() && payload.messages().get(0).kind() == JsonRpcMessage.Kind.NOTIFICATION;
			}
			catch (JsonRpcParseException ex) {
				return false;
			}
		}

	}

}
