package dev.mcprelay.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * {@link JsonRpcScanner#scan} against {@link JsonRpcParser#parse(byte[])}: the same verdict on every body (the same
 * error message, or the same messages with the same kinds, ids, methods and trees), the tree read only on demand.
 */
class JsonRpcScanTest {

	@ParameterizedTest
	@ValueSource(strings = {
			// valid
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}",
			"{\"result\":{},\"id\":\"abc\",\"jsonrpc\":\"2.0\"}",
			"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"m\",\"data\":[1,2.5e3]}}",
			"{\"jsonrpc\":\"2.0\",\"id\":9223372036854775807,\"result\":null}",
			"{\"jsonrpc\":\"2.0\",\"id\":92233720368547758070,\"result\":1}",
			"{\"jsonrpc\":\"2.0\",\"id\":-3,\"method\":\"sampling/createMessage\",\"params\":{\"a\":[{\"b\":{}}]}}",
			"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":[1,\"x\",true,null]}",
			" \n[ {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} , {\"jsonrpc\":\"2.0\",\"method\":\"n\"} ] \n",
			"\t{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"deep\":[[[[{\"x\":[{}]}]]]]}}\r\n",
			"{\"jsonrpc\":\"2.0\",\"id\":\"\\u00e9\\n\",\"result\":{\"t\":\"caf\u00e9 \u2603 \ud83d\ude00\"},\"ext\":{\"x\":[]}}",
			// not UTF-8 JSON text (RFC 8259, section 8.1)
			"\ufeff{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"after\":\"a byte-order mark\"}}",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"a raw \u0000\"}}",
			// not JSON
			"", "  ", "{", "nope", "{\"a\":1} trailing", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} {}",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"result\":{}}",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":1,\"a\":2}}",
			// a duplicate at every level the scan and Jackson divide between them
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"jsonrpc\":\"2.0\"}",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"ext\":1,\"result\":{},\"ext\":2}",
			"{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1,\"a\":2},\"result\":{}}",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"c\":[{\"t\":1,\"t\":2}]}}",
			"{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":[{\"x\":{\"y\":1,\"y\":1}}]}",
			"[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}},{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{},\"id\":3}]",
			"[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}},[{\"a\":1,\"a\":2}]]",
			"[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":1,\"b\":2,\"c\":3}},{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"a\":1,\"b\":2,\"a\":3}}]",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"n\":1e9999999999}}",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[1,2,}",
			"[{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":{}}, {\"broken\"]",
			// wrong shapes
			"[]", "null", "\"s\"", "7", "{}", "{\"jsonrpc\":\"2.0\"}", "{\"jsonrpc\":2.0,\"method\":\"x\"}",
			"{\"jsonrpc\":{\"v\":\"2.0\"},\"method\":\"x\"}", "{\"jsonrpc\":\"2.0\",\"method\":7}",
			"{\"jsonrpc\":\"2.0\",\"method\":\"\"}", "{\"jsonrpc\":\"2.0\",\"method\":null}",
			"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"x\"}", "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"x\"}",
			"{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"result\":{}}", "{\"jsonrpc\":\"2.0\",\"id\":true,\"result\":{}}",
			"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":\"p\"}", "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":null}",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{}}", "{\"jsonrpc\":\"2.0\",\"result\":{}}",
			"{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}", "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"bad\"}",
			"[{\"jsonrpc\":\"2.0\",\"method\":\"x\"},[]]", "[7, {\"jsonrpc\":\"2.0\",\"id\":1}]",
			"[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}},{\"jsonrpc\":\"2.0\",\"method\":\"\"}]" })
	void agreesWithTheTreeParse(String text) throws Exception {
		byte[] body = text.getBytes(StandardCharsets.UTF_8);
		JsonRpcParseException treeRefusal = catchThrowableOfType(JsonRpcParseException.class,
				() -> JsonRpcParser.parse(body));
		if (treeRefusal != null) {
			assertThatThrownBy(() -> JsonRpcScanner.scan(body)).isInstanceOfSatisfying(JsonRpcParseException.class,
					scanRefusal -> {
						assertThat(scanRefusal.getMessage()).isEqualTo(treeRefusal.getMessage());
						assertThat(scanRefusal.errorCode()).isEqualTo(treeRefusal.errorCode());
					});
			return;
		}
		JsonRpcPayload tree = JsonRpcParser.parse(body);
		JsonRpcPayload scanned = JsonRpcScanner.scan(body);
		assertThat(scanned.batch()).isEqualTo(tree.batch());
		assertThat(scanned.raw()).isSameAs(body);
		assertThat(scanned.messages()).hasSameSizeAs(tree.messages());
		for (int i = 0; i < tree.messages().size(); i++) {
			JsonRpcMessage expected = tree.messages().get(i);
			JsonRpcMessage actual = scanned.messages().get(i);
			assertThat(actual.kind()).isEqualTo(expected.kind());
			assertThat(actual.id()).isEqualTo(expected.id());
			if (expected.id() != null) {
				assertThat(actual.id().getClass()).isEqualTo(expected.id().getClass());
			}
			assertThat(actual.method()).isEqualTo(expected.method());
			assertThat(actual.isError()).isEqualTo(expected.isError());
			assertThat(actual.node()).isEqualTo(expected.node());
		}
	}

	@Test
	void readsTheTreeOnlyWhenAskedAndThenKeepsIt() throws Exception {
		JsonRpcMessage message = scan("[{\"jsonrpc\":\"2.0\",\"method\":\"n\"},"
				+ " {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"k\":1.50}} ]").messages().get(1);

		assertThat(message.node()).as("the same tree every time").isSameAs(message.node());
		assertThat(message.node().at("/result/k").decimalValue()).as("precision kept").hasToString("1.50");
		message.node().put("id", 8);
		assertThat(message.id().intValue()).as("a change to the tree shows").isEqualTo(8);
	}

	@Test
	void refusesABodyThatIsNotWellFormedUtf8() {
		byte[] overlong = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"__\"}}".getBytes(StandardCharsets.UTF_8);
		overlong[39] = (byte) 0xC0;
		overlong[40] = (byte) 0xAF;

		assertThatThrownBy(() -> JsonRpcScanner.scan(overlong)).isInstanceOfSatisfying(JsonRpcParseException.class,
				ex -> assertThat(ex.getMessage()).contains("UTF-8"));
	}

	/**
	 * Cold review D, finding 6: JSON in UTF-16 or UTF-32 is well-formed UTF-8 (its zero bytes are ASCII), and Jackson
	 * reads it in its own encoding; a UTF-8 byte-order mark Jackson skips. Every parse refuses each, as no UTF-8
	 * reader would take it for the same text, and the scan that relays notifications unread takes none for one.
	 */
	@ParameterizedTest(name = "refused: {0}")
	@ValueSource(strings = { "UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE", "UTF-16", "UTF-8 with a byte-order mark" })
	void refusesJsonInAnotherEncodingOrWithAByteOrderMark(String encoding) {
		String single = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}";
		String notification = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}";
		for (String text : new String[] { single, "[" + single + "," + notification + "]", notification }) {
			byte[] body = encoding.startsWith("UTF-8") ? ("\ufeff" + text).getBytes(StandardCharsets.UTF_8)
					: text.getBytes(java.nio.charset.Charset.forName(encoding));

			assertThatThrownBy(() -> JsonRpcScanner.scan(body)).as("scan of " + text)
				.isInstanceOfSatisfying(JsonRpcParseException.class, ex -> {
					assertThat(ex.errorCode()).isEqualTo(-32700);
					assertThat(ex.getMessage()).containsAnyOf("not UTF-8", "byte-order mark", "not well-formed UTF-8");
				});
			assertThatThrownBy(() -> JsonRpcParser.parse(body)).as("parse of " + text)
				.isInstanceOf(JsonRpcParseException.class);
			assertThatThrownBy(() -> JsonRpcParser.parseClientBody(body)).as("a client's " + text)
				.isInstanceOf(JsonRpcParseException.class);
			assertThat(NotificationScan.isPlainNotification(body, 0, body.length)).as(text).isFalse();
			assertThat(NotificationScan.isPlainNotification(new String(body, StandardCharsets.UTF_8))).as(text).isFalse();
		}
	}

	private static JsonRpcPayload scan(String body) throws JsonRpcParseException {
		return JsonRpcScanner.scan(body.getBytes(StandardCharsets.UTF_8));
	}

}
