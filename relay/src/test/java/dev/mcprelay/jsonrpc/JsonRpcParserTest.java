package dev.mcprelay.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;

class JsonRpcParserTest {

	@Test
	void recognisesTheThreeKinds() throws Exception {
		assertThat(parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}").first().kind())
			.isEqualTo(JsonRpcMessage.Kind.REQUEST);
		assertThat(parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").first().kind())
			.isEqualTo(JsonRpcMessage.Kind.NOTIFICATION);
		JsonRpcMessage error = parse("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-1,\"message\":\"m\"}}").first();
		assertThat(error.kind()).isEqualTo(JsonRpcMessage.Kind.RESPONSE);
		assertThat(error.isError()).isTrue();
	}

	@Test
	void batchKeepsEveryMessageAndItsRequestIds() throws Exception {
		JsonRpcPayload batch = parse("[{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"},"
				+ "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]");
		assertThat(batch.batch()).isTrue();
		assertThat(batch.messages()).hasSize(3);
		assertThat(batch.requestIds()).extracting(Object::toString).containsExactly("\"a\"", "2");
	}

	@Test
	void keepsTheRawBytesAndUnknownFields() throws Exception {
		String body = "{ \"jsonrpc\" : \"2.0\", \"id\":1, \"method\":\"x\", \"params\":{\"_meta\":{\"k\":1.50}}, \"ext\":true }";
		JsonRpcPayload payload = parse(body);
		assertThat(payload.raw()).isEqualTo(body.getBytes(StandardCharsets.UTF_8));
		assertThat(payload.first().node().get("ext").asBoolean()).isTrue();
		assertThat(payload.first().node().at("/params/_meta/k").decimalValue()).as("precision kept").hasToString("1.50");
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "{", "nope", "{\"a\":1} trailing", "{\"a\":1,\"a\":2}" })
	void notJsonIsAParseError(String body) {
		assertThatThrownBy(() -> parse(body)).isInstanceOfSatisfying(JsonRpcParseException.class, ex -> {
			assertThat(ex.notJson()).isTrue();
			assertThat(ex.errorCode()).isEqualTo(-32700);
		});
	}

	/**
	 * The tree refuses a member name its object already holds, however deep, as the parser's own detection did: a
	 * body whose readers could each take another value under one name (the relay one, the upstream the other) is
	 * never relayed. Alone or in a batch.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"method\":\"y\"}",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\",\"name\":\"b\"}}",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\",\"arguments\":"
					+ "{\"k\":[{\"deep\":1,\"deep\":2}]}}}",
			"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"id\":3,\"method\":\"ping\"}]" })
	void aMemberNameTwiceInOneObjectIsAParseErrorAtAnyDepth(String body) {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		assertThatThrownBy(() -> JsonRpcParser.parseClientBody(bytes))
			.isInstanceOfSatisfying(JsonRpcParseException.class, ex -> {
				assertThat(ex.notJson()).isTrue();
				assertThat(ex.errorCode()).isEqualTo(-32700);
			});
		assertThatThrownBy(() -> JsonRpcParser.parse(bytes)).isInstanceOf(JsonRpcParseException.class);
	}

	@ParameterizedTest
	@ValueSource(strings = { "[]", "null", "\"s\"", "{}", "{\"jsonrpc\":\"2.0\"}", "{\"jsonrpc\":2.0,\"method\":\"x\"}",
			"{\"jsonrpc\":\"2.0\",\"method\":7}", "{\"jsonrpc\":\"2.0\",\"method\":\"\"}",
			"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"x\"}", "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"x\"}",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{}}", "{\"jsonrpc\":\"2.0\",\"result\":{}}",
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"bad\"}", "[{\"jsonrpc\":\"2.0\",\"method\":\"x\"},[]]" })
	void wrongShapesAreInvalidRequests(String body) {
		assertThatThrownBy(() -> parse(body)).isInstanceOfSatisfying(JsonRpcParseException.class, ex -> {
			assertThat(ex.notJson()).isFalse();
			assertThat(ex.errorCode()).isEqualTo(-32600);
		});
	}

	@Test
	void aClientBatchAnswersEachInvalidElementAndKeepsTheValidOnes() throws Exception {
		JsonRpcPayload batch = JsonRpcParser.parseClientBody(("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
				+ "{\"jsonrpc\":\"1.0\",\"id\":\"b\",\"method\":\"ping\"}, 7, {\"jsonrpc\":\"2.0\",\"id\":2.5,\"method\":\"x\"},"
				+ "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}]").getBytes(StandardCharsets.UTF_8));

		assertThat(batch.messages()).extracting(JsonRpcMessage::method).containsExactly("ping", "notifications/x");
		assertThat(batch.isWhole()).isFalse();
		assertThat(batch.invalidAnswers()).extracting(answer -> answer.get("id").toString())
			.as("an invalid element keeps its id when it is a string or an integer")
			.containsExactly("\"b\"", "null", "null");
		assertThat(batch.invalidAnswers()).allSatisfy(answer -> {
			assertThat(answer.at("/error/code").asInt()).isEqualTo(-32600);
			assertThat(answer.at("/error/message").asText()).startsWith("Invalid Request: batch element");
		});
	}

	@ParameterizedTest(name = "a client batch whose requests share the id {0} is refused whole")
	@ValueSource(strings = { "7", "\"seven\"", "9007199254740993" })
	void aClientBatchWhoseRequestsShareAnIdIsRefusedWhole(String id) {
		String body = "[{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\"},"
				+ "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
				+ "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"ping\"}]";

		assertThatThrownBy(() -> JsonRpcParser.parseClientBody(body.getBytes(StandardCharsets.UTF_8)))
			.as("answers are paired with requests by id: two requests under one id would pair an answer with the "
					+ "wrong request, and its stage with it")
			.isInstanceOfSatisfying(JsonRpcParseException.class, ex -> {
				assertThat(ex.errorCode()).isEqualTo(-32600);
				assertThat(ex.getMessage()).contains("batch elements 0 and 2").contains("id " + id);
			});
	}

	@Test
	void aClientBatchWhoseIdsADoubleCannotTellApartIsRefusedWhole() {
		// one number to JSON.parse: both reach such a server as 9007199254740992, and are answered under it
		String body = "[{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"tools/list\"},"
				+ "{\"jsonrpc\":\"2.0\",\"id\":9007199254740992,\"method\":\"ping\"}]";

		assertThatThrownBy(() -> JsonRpcParser.parseClientBody(body.getBytes(StandardCharsets.UTF_8)))
			.isInstanceOfSatisfying(JsonRpcParseException.class, ex -> {
				assertThat(ex.errorCode()).isEqualTo(-32600);
				assertThat(ex.getMessage()).contains("batch elements 0 and 1").contains("9007199254740993")
					.contains("9007199254740992");
			});
	}

	@Test
	void idsCompareAsADoubleReadsThem() {
		com.fasterxml.jackson.databind.node.JsonNodeFactory nodes = JsonRpcParser.mapper().getNodeFactory();
		assertThat(JsonRpcIds.same(nodes.numberNode(9007199254740993L), nodes.numberNode(9007199254740992L)))
			.as("2^53 + 1 rounds to 2^53").isTrue();
		assertThat(JsonRpcIds.same(nodes.numberNode(9007199254740995L), nodes.numberNode(9007199254740996L))).isTrue();
		assertThat(JsonRpcIds.same(nodes.numberNode(9007199254740994L), nodes.numberNode(9007199254740992L)))
			.as("two doubles").isFalse();
		assertThat(JsonRpcIds.same(nodes.numberNode(new java.math.BigInteger("18446744073709551617")),
				nodes.numberNode(new java.math.BigInteger("18446744073709551616")))).as("past a long too").isTrue();
		assertThat(JsonRpcIds.same(nodes.numberNode(7), nodes.numberNode(7L))).isTrue();
		assertThat(JsonRpcIds.same(nodes.numberNode(1), nodes.textNode("1"))).as("a number is no string").isFalse();
		assertThat(JsonRpcIds.same(nodes.numberNode(new java.math.BigDecimal("1.5")), nodes.numberNode(1)))
			.as("a fraction is not cut").isFalse();
		assertThat(JsonRpcIds.same(nodes.numberNode(-3), nodes.numberNode(3))).isFalse();
	}

	@Test
	void requestsWhoseIdsDifferOnlyInTypeAndAnswersSharingAnIdAreNoDuplicates() throws Exception {
		JsonRpcPayload batch = JsonRpcParser.parseClientBody(("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
				+ "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"ping\"},"
				+ "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]").getBytes(StandardCharsets.UTF_8));

		assertThat(batch.messages()).as("1 and \"1\" are two ids; an answer to a server request is no request")
			.hasSize(3);
	}

	@Test
	void aLongSharedIdIsNamedCut() {
		String id = "\"" + "x".repeat(10_000) + "\"";
		String body = "[{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":"
				+ id + ",\"method\":\"ping\"}]";

		assertThatThrownBy(() -> JsonRpcParser.parseClientBody(body.getBytes(StandardCharsets.UTF_8)))
			.isInstanceOfSatisfying(JsonRpcParseException.class,
					ex -> assertThat(ex.getMessage()).as("the error names the id, not 10,000 characters of it")
						.hasSizeLessThan(300));
	}

	@ParameterizedTest(name = "a client's {0} without an id is no notification")
	@ValueSource(strings = { "tools/call", "tools/list", "prompts/get", "resources/read", "initialize", "ping",
			"sampling/createMessage", "tasks/cancel" })
	void aClientMessageWithoutAnIdThatNamesARequestMethodIsInvalid(String method) throws Exception {
		String notification = "{\"jsonrpc\":\"2.0\",\"method\":\"" + method + "\",\"params\":{\"name\":\"x\"}}";

		assertThatThrownBy(() -> JsonRpcParser.parseClientBody(notification.getBytes(StandardCharsets.UTF_8)))
			.isInstanceOfSatisfying(JsonRpcParseException.class, ex -> {
				assertThat(ex.errorCode()).isEqualTo(-32600);
				assertThat(ex.getMessage()).isEqualTo("Invalid Request: " + method + " is a request and needs an id; "
						+ "it is never forwarded as a notification");
			});
		JsonRpcPayload batch = JsonRpcParser.parseClientBody(("[" + notification
				+ ",{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]").getBytes(StandardCharsets.UTF_8));
		assertThat(batch.messages()).extracting(JsonRpcMessage::method).as("in a batch, the others go on")
			.containsExactly("notifications/initialized");
		assertThat(batch.invalidAnswers()).singleElement()
			.satisfies(answer -> assertThat(answer.get("id").isNull()).isTrue());
		assertThat(JsonRpcParser.parse(notification.getBytes(StandardCharsets.UTF_8)).first().method())
			.as("an upstream's is parsed (the response stages drop it)").isEqualTo(method);
	}

	@Test
	void anUpstreamBatchWithAnInvalidElementIsStillInvalidWhole() {
		assertThatThrownBy(() -> parse("[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}},7]"))
			.isInstanceOf(JsonRpcParseException.class);
	}

	@Test
	void aStringLongerThanJacksonsOwnBoundIsJson() throws Exception {
		// Jackson refuses strings over 20,000,000 characters; a body within max-buffered-body is the relay's bound
		for (String text : new String[] { "a".repeat(20_000_001), "ab\\n".repeat(7_000_001) }) {
			byte[] body = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\","
					+ "\"arguments\":{\"s\":\"" + text + "\"}}}").getBytes(StandardCharsets.UTF_8);
			assertThat(JsonRpcParser.parseClientBody(body).first().node().at("/params/arguments/s").textValue().length())
				.as("a string of %,d characters as written", text.length())
				.isGreaterThan(20_000_000);
		}
	}

	@Test
	void jsonPastTheParsersBoundsIsAnInvalidRequestThatSaysWhich() {
		String deep = "[".repeat(1001) + "]".repeat(1001);
		assertThatThrownBy(() -> JsonRpcParser.parseClientBody(("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\","
				+ "\"params\":{\"a\":" + deep + "}}").getBytes(StandardCharsets.UTF_8)))
			.isInstanceOfSatisfying(JsonRpcParseException.class, ex -> {
				assertThat(ex.errorCode()).as("valid JSON: no parse error").isEqualTo(-32600);
				assertThat(ex.getMessage())
					.isEqualTo("Invalid Request: the body is JSON past what the relay reads (nested more than 1000 "
							+ "levels deep)");
			});
		String number = "1".repeat(1001);
		assertThatThrownBy(() -> JsonRpcParser.parseClientBody(("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\","
				+ "\"params\":{\"a\":" + number + "}}").getBytes(StandardCharsets.UTF_8)))
			.isInstanceOfSatisfying(JsonRpcParseException.class, ex -> assertThat(ex.getMessage())
				.endsWith("(a number of more than 1000 characters)"));
	}

	private static JsonRpcPayload parse(String body) throws JsonRpcParseException {
		return JsonRpcParser.parse(body.getBytes(StandardCharsets.UTF_8));
	}

}
