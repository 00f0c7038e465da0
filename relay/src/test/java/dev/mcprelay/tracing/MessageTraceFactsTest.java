package dev.mcprelay.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.RequestHeaders;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcParser;

/**
 * What a message's trace says of it ({@link MessageTrace.Facts}): the JSON-RPC id ({@code jsonrpc.request.id}) is a
 * string's text and an integer's digits (the only ids a request may have), however large.
 */
class MessageTraceFactsTest {

	@Test
	void anIdIsAStringsTextOrAnIntegersDigits() throws Exception {
		assertThat(requestIdOf("\"call-1\"")).isEqualTo("call-1");
		assertThat(requestIdOf("7")).isEqualTo("7");
		assertThat(requestIdOf("-12345678901")).isEqualTo("-12345678901");
		assertThat(requestIdOf("123456789012345678901234567890")).isEqualTo("123456789012345678901234567890");
	}

	@Test
	void aNotificationHasNoId() throws Exception {
		JsonRpcMessage message = JsonRpcParser
			.parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}".getBytes(StandardCharsets.UTF_8))
			.messages()
			.get(0);
		assertThat(MessageTrace.Facts.of(message, new CallContext("s", RequestHeaders.empty())).requestId()).isNull();
	}

	private static String requestIdOf(String id) throws Exception {
		JsonRpcMessage message = JsonRpcParser
			.parse(("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}")
				.getBytes(StandardCharsets.UTF_8))
			.messages()
			.get(0);
		return MessageTrace.Facts.of(message, new CallContext("s", RequestHeaders.empty())).requestId();
	}

}
