package dev.mcprelay.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The pre-check that lets the relay parse only the messages that may hold a word ({@link JsonWord}) never misses a
 * JSON spelling of it: whatever characters of a string are written as escapes, a string whose decoded text holds the
 * word is always looked into; and a text that holds neither the word nor an escape of one of its characters is not.
 */
class JsonWordTest {

	private static final JsonWord LIST_CHANGED = JsonWord.of("list_changed");

	@Test
	void everySpellingOfTheWordIsLookedInto() {
		for (String method : List.of("notifications/tools/list_changed", "notifications/tools/list\\u005fchanged",
				"notifications/tools/list\\u005Fchanged", "notifications/tools/\\u006cist_changed",
				"notifications/tools/list_change\\u0064", "notifications\\/tools\\/list_changed",
				"\\u006e\\u006f\\u0074\\u0069\\u0066\\u0069\\u0063\\u0061\\u0074\\u0069\\u006f\\u006e\\u0073\\u002f"
						+ "\\u0074\\u006f\\u006f\\u006c\\u0073\\u002f\\u006c\\u0069\\u0073\\u0074\\u005f\\u0063\\u0068"
						+ "\\u0061\\u006e\\u0067\\u0065\\u0064")) {
			String json = "{\"jsonrpc\":\"2.0\",\"method\":\"" + method + "\"}";
			assertThat(decodedMethod(json)).as(json).isEqualTo("notifications/tools/list_changed");
			assertThat(LIST_CHANGED.mayBeIn(bytes(json))).as(json).isTrue();
		}
	}

	@Test
	void aTextThatCannotSpellItIsNotLookedInto() {
		for (String json : List.of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}",
				"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":"
						+ "{\"data\":\"a\\nb \\u00e9 \\u003c\"}}",
				"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list-changed\"}",
				"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_change\\u\"}")) {
			assertThat(LIST_CHANGED.mayBeIn(bytes(json))).as(json).isFalse();
		}
	}

	/**
	 * Generated strings over the word's characters and others, each character written as it is, as {@code \}{@code u}
	 * with lower or upper hex digits, or as its short escape: whenever Jackson decodes a string holding the word, the
	 * pre-check said it may.
	 */
	@Test
	void noGeneratedSpellingThatDecodesToTheWordIsMissed() {
		Random random = new Random(43);
		String alphabet = "list_changed/\"\\\n\tx";
		int holding = 0;
		for (int round = 0; round < 20_000; round++) {
			StringBuilder text = new StringBuilder();
			if (random.nextInt(3) == 0) {
				text.append("list_changed", 0, random.nextInt(4));
			}
			int length = random.nextInt(20);
			for (int i = 0; i < length; i++) {
				text.append(random.nextInt(3) == 0 ? "list_changed".charAt(i % 12)
						: alphabet.charAt(random.nextInt(alphabet.length())));
			}
			if (random.nextBoolean()) {
				text.insert(random.nextInt(text.length() + 1), "list_changed");
			}
			String json = "{\"method\":\"" + spell(text.toString(), random) + "\"}";
			boolean holds = decodedMethod(json).contains("list_changed");
			holding += holds ? 1 : 0;
			if (holds) {
				assertThat(LIST_CHANGED.mayBeIn(bytes(json))).as(json).isTrue();
			}
		}
		assertThat(holding).as("cases that hold the word").isGreaterThan(5_000);
	}

	/** {@code text} as a JSON string's content, each character written one of the ways JSON allows. */
	private static String spell(String text, Random random) {
		StringBuilder json = new StringBuilder();
		for (char c : text.toCharArray()) {
			String shortEscape = switch (c) {
				case '"' -> "\\\"";
				case '\\' -> "\\\\";
				case '/' -> random.nextBoolean() ? "\\/" : "/";
				case '\n' -> "\\n";
				case '\t' -> "\\t";
				default -> null;
			};
			int way = random.nextInt(4);
			if (way == 1) {
				json.append(String.format("\\u%04x", (int) c));
			}
			else if (way == 2) {
				json.append(String.format("\\u%04X", (int) c));
			}
			else {
				json.append(shortEscape != null ? shortEscape : String.valueOf(c));
			}
		}
		return json.toString();
	}

	private static String decodedMethod(String json) {
		try {
			JsonNode node = JsonRpcParser.mapper().readTree(json);
			return node.path("method").asText();
		}
		catch (java.io.IOException ex) {
			throw new AssertionError(json, ex);
		}
	}

	private static byte[] bytes(String json) {
		return json.getBytes(StandardCharsets.UTF_8);
	}

}
