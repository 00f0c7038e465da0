package dev.mcprelay.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

/**
 * A body larger than a few KB is read without Jackson's table of names, through its UTF-8 reader, whose offsets are in
 * characters: the scanner's message bounds and the parser's copy of strings from the body's bytes still land on the
 * right bytes when characters of two, three and four bytes (a surrogate pair) come before them. A byte-order mark
 * before a body, large or small, is refused ({@link JsonText}).
 */
class JsonRpcLargeBodyOffsetsTest {

	private static final ObjectMapper JACKSON = new ObjectMapper();

	private static final String MIXED = "é€😀 \\\"q\\\" \\u00e9 ";

	@Test
	void aLargeBodyReadsAsJacksonReadsIt() throws Exception {
		byte[] body = call("a", 0).getBytes(StandardCharsets.UTF_8);
		assertThat(body.length).isGreaterThan(8 * 1024);
		JsonNode expected = JACKSON.readTree(call("a", 0));
		assertThat(JsonRpcParser.parseClientBody(body).first().node()).as("a client's body").isEqualTo(expected);
		assertThat(JsonRpcParser.parse(body).first().node()).as("an upstream's body").isEqualTo(expected);
		byte[] marked = ("\uFEFF" + call("a", 0)).getBytes(StandardCharsets.UTF_8);
		assertThatThrownBy(() -> JsonRpcParser.parseClientBody(marked)).as("after a byte-order mark")
			.isInstanceOf(JsonRpcParseException.class);
		assertThatThrownBy(() -> JsonRpcParser.parse(marked)).isInstanceOf(JsonRpcParseException.class);
	}

	@Test
	void aLargeBatchIsScannedIntoItsMessagesBytes() throws Exception {
		String batch = "[" + call("a", 1) + " ,\n" + call("b", 2) + "," + call("c", 3) + "]";
		List<JsonRpcMessage> messages = JsonRpcScanner.scan(batch.getBytes(StandardCharsets.UTF_8)).messages();
		JsonNode expected = JACKSON.readTree(batch);
		assertThat(messages).hasSize(3);
		for (int i = 0; i < 3; i++) {
			assertThat(messages.get(i).node()).as("message %d", i).isEqualTo(expected.get(i));
			assertThat(messages.get(i).id().intValue()).isEqualTo(i + 1);
		}
	}

	@Test
	void aLargeBodyOfMalformedUtf8IsNoJson() {
		byte[] body = call("a", 0).getBytes(StandardCharsets.UTF_8);
		int at = call("a", 0).indexOf("plain ascii ", 6000);
		body[at] = (byte) 0xFF;
		body[at + 1] = (byte) 0xC3;
		assertThatThrownBy(() -> JsonRpcParser.parse(body)).as("no replacement character: refused")
			.isInstanceOf(JsonRpcParseException.class);
	}

	/** A tools/call of some KB whose strings and names mix ASCII, escapes and characters of two, three and four bytes. */
	private static String call(String name, int id) {
		StringBuilder arguments = new StringBuilder("{");
		for (int i = 0; i < 40; i++) {
			arguments.append(i == 0 ? "" : ",").append("\"").append(MIXED).append(name).append(i).append("\":\"")
				.append(i % 3 == 0 ? "plain ascii ".repeat(30) : MIXED.repeat(20)).append("\"");
		}
		return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + MIXED
				+ "\",\"arguments\":" + arguments.append('}') + "}}";
	}

}
