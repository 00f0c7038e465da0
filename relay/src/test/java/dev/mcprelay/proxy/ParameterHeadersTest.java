package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.http.HttpHeaders;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.RawHttp;

/**
 * How an {@code Mcp-Param-*} header is matched to the argument it mirrors (MCP 2026-07-28, SEP-2243): the tool's
 * {@code x-mcp-header} declarations (property paths through {@code properties} only), and each header line against
 * the argument's JSON value: strings and booleans exactly, numbers numerically in plain decimal only, the Base64
 * sentinel decoded, nothing for an absent or null argument, no character a field value may not hold. The relay's
 * refusal of a request through a real server is {@code ParameterHeadersInteropTest}'s.
 */
class ParameterHeadersTest {

	private static final JsonNode TOOL = RawHttp.json("""
			{"name":"deploy","inputSchema":{"type":"object","properties":{
			  "port":{"type":"integer","x-mcp-header":"Port"},
			  "target":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}},
			  "force":{"type":"boolean","x-mcp-header":"Force"},
			  "hosts":{"type":"array","items":{"type":"string","x-mcp-header":"Host"}},
			  "either":{"oneOf":[{"type":"string","x-mcp-header":"Either"}]},
			  "a":{"type":"string","x-mcp-header":"Twice"},"b":{"type":"string","x-mcp-header":"TWICE"}}}}""");

	@Test
	void aToolDeclaresWhatItsPropertiesReachedThroughPropertiesMark() {
		Map<String, ParameterHeaders.Mirrored> declared = ParameterHeaders.declaredBy(TOOL);

		assertThat(declared.get("port").path()).containsExactly("port");
		assertThat(declared.get("region")).isEqualTo(new ParameterHeaders.Mirrored("Region", List.of("target", "region")));
		assertThat(declared.get("force").path()).containsExactly("force");
		assertThat(declared).as("not statically reachable: under items, oneOf").doesNotContainKeys("host", "either");
		assertThat(declared.get("twice").path()).as("declared twice: any header of that name is refused").isNull();
		assertThat(ParameterHeaders.declaredBy(RawHttp.json("{\"name\":\"plain\"}"))).isEmpty();
	}

	@Test
	void aToolThatDeclaresANameNoHeaderCanCarryIsInvalidItsHeadersRefusedAndNeverWritten() {
		// review 43h F-7: such a name was written upstream (Netty refused it: 502, and its CR LF forged a log line)
		for (String name : List.of("Port\\r\\nX-Evil: 1", "Po rt", "P\u00f6rt", "Port:", "")) {
			JsonNode tool = RawHttp.json("{\"name\":\"t\",\"inputSchema\":{\"properties\":{"
					+ "\"port\":{\"type\":\"integer\",\"x-mcp-header\":\"" + name + "\"},"
					+ "\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"}}}}");
			Map<String, ParameterHeaders.Mirrored> declared = ParameterHeaders.declaredBy(tool);
			assertThat(declared).as("%s: only token names are kept", name).containsOnlyKeys("region");
			assertThat(declared.get("region").path()).as("%s: the tool is invalid", name).isNull();
			JsonNode arguments = RawHttp.json("{\"port\":1,\"region\":\"eu\"}");
			assertThat(ParameterHeaders.mismatch(headers("Mcp-Param-Region", "eu"), arguments, declared, "s"))
				.as("%s: its headers are refused", name).isNotNull();
			HttpHeaders wire = headers("Mcp-Param-Region", "eu");
			ParameterHeaders.mirror(wire, arguments, declared);
			assertThat(wire.headerNames()).as("%s: and never written", name).isEmpty();
		}
		assertThat(ParameterHeaders.isToken("X-Region_2.b!#$%&'*+^`|~")).isTrue();
		assertThat(dev.mcprelay.LogText.quote("a\r\nX-Evil: \"1\"")).as("a log line carries no line break")
			.isEqualTo("\"a\\u000d\\u000aX-Evil: \\\"1\\\"\"");
	}

	@ParameterizedTest(name = "header {0} against {1}: {2}")
	@CsvSource(delimiter = '|', value = {
			"22|22|true", "22.0|22|true", "22|22.0|true", "-7|-7|true", "=?base64?MjI=?=|22|true",
			"21|22|false", "022|22|false", "+22|22|false", "2.2e1|22|false", "0x16|22|false", "' 22'|22|false",
			"22|4294967318|false", "22|18446744073709551638|false", "22|22.5|false", "22|'\"22\"'|true",
			"22.5|22.5|true", "true|true|true", "True|true|false", "false|true|false", "1|true|false",
			"us-west1|'\"us-west1\"'|true", "US-WEST1|'\"us-west1\"'|false", "=?base64?***?=|'\"x\"'|false", "=?base64?SGVsbG8=?=|'\"Hello\"'|true",
			"=?base64?SGVsbG8?=|'\"Hello\"'|false", "=?base64?SGVs!!!bG8=?=|'\"Hello\"'|false",
			"SGVsbG8=|'\"SGVsbG8=\"'|true", "=?base64?SGVsbG8=|'\"=?base64?SGVsbG8=\"'|true",
			"=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=|'\"=?base64?literal?=\"'|true", "null|null|false",
			"'{}'|'{}'|false", "22|'[22]'|false" })
	void aLineMatchesTheValueItMirrors(String line, String json, boolean matches) {
		assertThat(ParameterHeaders.matches(line, RawHttp.json(json))).isEqualTo(matches);
	}

	/**
	 * Review 43j N-7: Base64 of bytes that are no UTF-8 ({@code a FF b}) is a broken value, never read as
	 * {@code a\uFFFDb}, which a body could say.
	 */
	@Test
	void aBase64ValueThatIsNoUtf8MatchesNothing() {
		assertThat(ParameterHeaders.matches("=?base64?Yf9i?=", RawHttp.json("\"a\\ufffdb\""))).isFalse();
		assertThat(MirroredHeaders.decode("=?base64?Yf9i?=")).isNull();
		assertThat(ParameterHeaders.matches("=?base64?Ye+/vWI=?=", RawHttp.json("\"a\\ufffdb\"")))
			.as("U+FFFD itself, in UTF-8").isTrue();
	}

	/**
	 * Review 43j N-5: a header the relay would write for an argument longer than
	 * {@value dev.mcprelay.transport.WrittenHeaderBound#MAX_BYTES} bytes, or for a string with an unpaired surrogate
	 * (whose UTF-8 would be a replacement, so the header would disagree with the body), is refused with a clear
	 * -32602; a paired surrogate and a value of exactly the bound are written.
	 */
	@Test
	void aHeaderTheRelayCannotWriteTrulyRefusesTheCall() {
		Map<String, ParameterHeaders.Mirrored> declared = Map.of("region",
				ParameterHeaders.declaredBy(TOOL).get("region"));
		String atBound = "r".repeat(dev.mcprelay.transport.WrittenHeaderBound.MAX_BYTES);
		assertThat(ParameterHeaders.unwritable(RawHttp.json("{\"target\":{\"region\":\"" + atBound + "\"}}"),
				declared, "s")).isNull();
		assertThat(ParameterHeaders.unwritable(RawHttp.json("{\"target\":{\"region\":\"\\ud83d\\ude00\"}}"),
				declared, "s")).as("a pair is Unicode").isNull();
		for (String region : List.of(atBound + "r", "a\\ud800b", "a\\udc00", "\\ud800")) {
			RelayFailure refused = ParameterHeaders.unwritable(
					RawHttp.json("{\"target\":{\"region\":\"" + region + "\"}}"), declared, "s");
			assertThat(refused).as(region.length() > 20 ? "too long" : region).isNotNull();
			assertThat(refused.reason()).isEqualTo("header_unwritable");
			assertThat(refused.getMessage()).contains("Mcp-Param-Region").contains("params.arguments.target.region");
		}
	}

	/**
	 * Review 43l, L-2: a value is measured without being written. The number {@code 1E+2147483647} (a short argument)
	 * is refused, not written out to two billion digits (which fails with an OutOfMemoryError when it is); and the
	 * measure is the length of the text a header carries, for generated numbers of every shape.
	 */
	@Test
	void aNumberWhoseTextIsTooLongIsRefusedWithoutBeingWrittenOut() {
		Map<String, ParameterHeaders.Mirrored> declared = Map.of("region",
				ParameterHeaders.declaredBy(TOOL).get("region"));
		com.fasterxml.jackson.databind.node.JsonNodeFactory exact = com.fasterxml.jackson.databind.node.JsonNodeFactory
			.withExactBigDecimals(true);
		for (String huge : List.of("1E+2147483647", "1e999999999", "-4.2e5000", "0E-999999999")) {
			com.fasterxml.jackson.databind.node.ObjectNode arguments = exact.objectNode();
			arguments.putObject("target").set("region", exact.numberNode(new java.math.BigDecimal(huge)));
			RelayFailure refused = ParameterHeaders.unwritable(arguments, declared, "s");
			assertThat(refused).as(huge).isNotNull();
			assertThat(refused.reason()).isEqualTo("header_unwritable");
			assertThat(ParameterHeaders.encode(arguments.at("/target/region"))).as("never built").isNull();
		}
		java.util.Random random = new java.util.Random(43);
		for (int i = 0; i < 2000; i++) {
			java.math.BigDecimal number = new java.math.BigDecimal(new java.math.BigInteger(random.nextInt(200) + 1,
					random), random.nextInt(400) - 200).multiply(java.math.BigDecimal.valueOf(random.nextBoolean() ? 1 : -1));
			JsonNode node = exact.numberNode(number);
			assertThat(ParameterHeaders.plainLength(node)).as("%s", number).isEqualTo(number.toPlainString().length());
		}
		assertThat(ParameterHeaders.plainLength(exact.numberNode(new java.math.BigDecimal("0e5")))).isEqualTo(1);
	}

	@Test
	void aLineWithCharactersAFieldValueMayNotHoldMatchesNothing() {
		assertThat(ParameterHeaders.matches("us-west1\u0000", RawHttp.json("\"us-west1\\u0000\""))).isFalse();
		assertThat(ParameterHeaders.matches("Z\u00fcrich", RawHttp.json("\"Z\u00fcrich\""))).as("raw non-ASCII").isFalse();
		assertThat(ParameterHeaders.matches("a\tb", RawHttp.json("\"a\\tb\""))).as("a tab may be held").isTrue();
		assertThat(ParameterHeaders.matches("22", null)).as("an absent argument").isFalse();
	}

	@Test
	void everyLineAndEveryCaseOfADeclaredHeaderIsCheckedAndAnUndeclaredOneIsNot() {
		Map<String, ParameterHeaders.Mirrored> declared = ParameterHeaders.declaredBy(TOOL);
		JsonNode arguments = RawHttp.json("{\"port\":22,\"target\":{\"region\":\"eu\"}}");

		assertThat(ParameterHeaders.mismatch(headers("mcp-param-PORT", "22", "Mcp-Param-Region", "eu",
				"Mcp-Param-Unknown", "anything"), arguments, declared, "s")).isNull();
		assertThat(ParameterHeaders.mismatch(headers("Mcp-Param-Port", "22", "Mcp-Param-Port", "1"), arguments,
				declared, "s")).as("a second line that disagrees").isNotNull();
		RelayFailure nested = ParameterHeaders.mismatch(headers("Mcp-Param-Region", "us"), arguments, declared, "s");
		assertThat(nested.reason()).isEqualTo("header_mismatch");
		assertThat(nested.getMessage()).contains("Mcp-Param-Region").contains("params.arguments.target.region");
		assertThat(ParameterHeaders.mismatch(headers("Mcp-Param-Force", "false"), arguments, declared, "s"))
			.as("a header for an argument the call lacks").isNotNull();
		assertThat(ParameterHeaders.mismatch(headers("Mcp-Param-Twice", "x"), RawHttp.json("{\"a\":\"x\",\"b\":\"x\"}"),
				declared, "s")).as("a name declared twice").isNotNull();
	}

	@Test
	void theHeadersOfChangedArgumentsAreWrittenAsAClientWouldOrDropped() {
		Map<String, ParameterHeaders.Mirrored> declared = ParameterHeaders.declaredBy(TOOL);
		HttpHeaders wire = headers("mcp-param-port", "22", "Mcp-Param-Region", "us", "Mcp-Param-Other", "kept");

		ParameterHeaders.mirror(wire, RawHttp.json("{\"port\":80,\"target\":{\"region\":\"Z\u00fcrich\"},\"force\":true}"),
				declared);

		assertThat(wire.get("Mcp-Param-Port")).containsExactly("80");
		assertThat(wire.get("Mcp-Param-Region")).containsExactly("=?base64?WsO8cmljaA==?=");
		assertThat(wire.get("Mcp-Param-Force")).containsExactly("true");
		assertThat(wire.get("Mcp-Param-Other")).as("declared by nothing: untouched").containsExactly("kept");
		ParameterHeaders.mirror(wire, RawHttp.json("{\"target\":{}}"), declared);
		assertThat(wire.headerNames()).as("absent arguments have no header").noneMatch(
				name -> name.equalsIgnoreCase("Mcp-Param-Port") || name.equalsIgnoreCase("Mcp-Param-Region"));
		assertThat(ParameterHeaders.encode(RawHttp.json("\" padded \""))).isEqualTo("=?base64?IHBhZGRlZCA=?=");
		assertThat(ParameterHeaders.encode(RawHttp.json("\"=?base64?literal?=\"")))
			.isEqualTo("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
	}

	private static HttpHeaders headers(String... namesAndValues) {
		HttpHeaders headers = new HttpHeaders();
		for (int i = 0; i < namesAndValues.length; i += 2) {
			headers.add(namesAndValues[i], namesAndValues[i + 1]);
		}
		return headers;
	}

}
