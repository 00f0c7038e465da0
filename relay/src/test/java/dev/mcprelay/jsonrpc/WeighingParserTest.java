package dev.mcprelay.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.jsonrpc.JsonRpcJson;

/**
 * The parser a client body's tree is built with ({@link JsonRpcParser#parseClientBody(byte[], HeapBudget)}): the tree
 * is the one Jackson builds, the budget is charged at least what the tree takes on the heap for every shape of body
 * (measured here, after a full collection, on bodies of 4 MB), before the parts are made, and a long ASCII string is
 * copied once from the body instead of going through Jackson's buffers.
 */
class WeighingParserTest {

	private static final int BODY = 4 * 1024 * 1024;

	@Test
	void everyTreeIsTheOneJacksonBuilds() throws Exception {
		Random random = new Random(41);
		for (int i = 0; i < 3000; i++) {
			String text = "{\"jsonrpc\":\"2.0\",\"id\":" + string(random) + ",\"method\":\"x\",\"params\":{\"p\":"
					+ value(random, 0) + "}}";
			byte[] body = text.getBytes(StandardCharsets.UTF_8);
			if (i % 3 == 0) {
				byte[] marked = withByteOrderMark(body);
				assertThatThrownBy(() -> JsonRpcParser.parseClientBody(marked, HeapBudget.NONE))
					.as("a byte-order mark is refused (JsonText)").isInstanceOf(JsonRpcParseException.class);
			}
			JsonNode expected;
			try {
				expected = JsonRpcJson.mapper().readTree(body);
			}
			catch (Exception refused) {
				continue; // a key the generator repeated
			}
			assertThat(JsonRpcParser.parseClientBody(body, HeapBudget.NONE).first().node()).as(text).isEqualTo(expected);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "one long string", "strings of 4 KB", "non-ASCII text", "escaped text", "empty objects",
			"empty arrays", "small integers", "integers", "decimals", "empty strings", "objects of one field",
			"nested objects", "unique keys" })
	void theBudgetIsChargedAtLeastWhatTheTreeTakesOnTheHeap(String shape) throws Exception {
		byte[] body = body(shape, BODY);
		long[] charged = new long[1];
		HeapBudget counting = new HeapBudget() {

			@Override
			public void take(long bytes) {
				charged[0] += bytes;
			}

			@Override
			public void give(long bytes) {
				charged[0] -= bytes;
			}

		};
		JsonRpcParser.parseClientBody(body(shape, 1000), counting); // Jackson's first use of each kind of node
		charged[0] = 0;
		long before = heapAfterCollection();
		JsonRpcPayload payload = JsonRpcParser.parseClientBody(body, counting);
		long retained = heapAfterCollection() - before;

		// a collection leaves up to a megabyte of other live objects, more or less: the string shapes take about their
		// size, so what would be off is seen above that
		assertThat(charged[0]).as("%s: %,d bytes of text took %,d bytes of heap as a tree", shape, body.length, retained)
			.isGreaterThanOrEqualTo(retained - 1024 * 1024)
			.as("%s: and not grossly more (shared nodes, such as small integers, cost only their slot)", shape)
			.isLessThanOrEqualTo(3 * retained + 2L * body.length);
		assertThat(payload.first().node()).isNotNull();
	}

	@Test
	void aBudgetWithNoRoomStopsTheParseWithItsOwnException() {
		byte[] body = body("empty objects", BODY);
		long[] charged = new long[1];
		HeapBudget small = new HeapBudget() {

			@Override
			public void take(long bytes) {
				if (charged[0] + bytes > 1024 * 1024) {
					throw new IllegalStateException("no room");
				}
				charged[0] += bytes;
			}

			@Override
			public void give(long bytes) {
				charged[0] -= bytes;
			}

		};
		assertThatThrownBy(() -> JsonRpcParser.parseClientBody(body, small)).as("the budget's own exception, as it is")
			.isInstanceOf(IllegalStateException.class)
			.hasMessage("no room");
		assertThat(charged[0]).as("stopped within a chunk of the budget").isLessThanOrEqualTo(1024 * 1024);
	}

	@Test
	void aLongAsciiStringIsCopiedOnceFromTheBody() throws Exception {
		byte[] body = body("one long string", BODY);
		JsonRpcParser.parseClientBody(body("one long string", 1000));
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
		long before = threads.getCurrentThreadAllocatedBytes();
		JsonRpcPayload payload = JsonRpcParser.parseClientBody(body);
		long allocated = threads.getCurrentThreadAllocatedBytes() - before;

		assertThat(payload.first().node().at("/params/arguments/s").textValue()).hasSize(BODY - 92);
		assertThat(allocated).as("its String, once (Jackson's buffers allocate four times the text)")
			.isLessThan(body.length + body.length / 4);
	}

	@Test
	void aLongStringWithAnEscapeOrAnAccentIsDecodedOnceFromTheBody() throws Exception {
		String text = "x".repeat(4 * 1024 * 1024);
		byte[] body = call("{\"s\":\"" + text + "\\n\\u00e9\u00e9\\\"\"}");
		JsonRpcParser.parseClientBody(call("{\"s\":\"warm\\n\u00e9\"}"));
		long[] charged = new long[2];
		HeapBudget counting = new HeapBudget() {

			@Override
			public void take(long bytes) {
				charged[0] += bytes;
				charged[1] = Math.max(charged[1], charged[0]);
			}

			@Override
			public void give(long bytes) {
				charged[0] -= bytes;
			}

		};
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
		long before = threads.getCurrentThreadAllocatedBytes();
		JsonNode tree = JsonRpcParser.parseClientBody(body, counting).first().node();
		long allocated = threads.getCurrentThreadAllocatedBytes() - before;

		assertThat(tree.at("/params/arguments/s").textValue()).isEqualTo(text + "\n\u00e9\u00e9\"");
		assertThat(allocated).as("an array of the text, then its String (Jackson's buffers allocate five times it)")
			.isLessThan(2L * body.length + body.length / 4);
		assertThat(charged[1]).as("while decoded: the text twice, not six times (a 17 MB text with a newline was 413 "
				+ "under a 50MB cap)").isBetween(2L * text.length(), 2L * text.length() + 4096);
		assertThat(charged[0]).as("once decoded: the string's text").isBetween((long) text.length(), text.length() + 2048L);
	}

	@Test
	void jacksonsBuffersAreChargedForTheMomentTheyLive() throws Exception {
		// a character past U+00FF: Jackson's to decode
		String escaped = "\\\"quoted\\\" \u20ac ".repeat(100_000);
		byte[] body = call("{\"s\":\"" + escaped + "\"}");
		long[] charged = new long[2];
		HeapBudget counting = new HeapBudget() {

			@Override
			public void take(long bytes) {
				charged[0] += bytes;
				charged[1] = Math.max(charged[1], charged[0]);
			}

			@Override
			public void give(long bytes) {
				charged[0] -= bytes;
			}

		};
		JsonNode tree = JsonRpcParser.parseClientBody(body, counting).first().node();

		assertThat(tree.at("/params/arguments/s").textValue()).startsWith("\"quoted\" ");
		long bytes = escaped.getBytes(StandardCharsets.UTF_8).length;
		assertThat(charged[1]).as("while decoded: the text and Jackson's buffers, four times the text")
			.isGreaterThanOrEqualTo(5L * bytes);
		assertThat(charged[0]).as("once decoded: the string, two bytes a character past U+00FF, and a few objects")
			.isBetween(2L * tree.at("/params/arguments/s").textValue().length(),
					2L * tree.at("/params/arguments/s").textValue().length() + 2048L);
	}

	/** A {@code tools/call} whose arguments are {@code arguments}, as UTF-8. */
	private static byte[] call(String arguments) {
		return ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":"
				+ arguments + "}}").getBytes(StandardCharsets.UTF_8);
	}

	/** A {@code tools/call} of about {@code size} bytes whose arguments have {@code shape}. */
	static byte[] body(String shape, int size) {
		StringBuilder text = new StringBuilder(size + 64);
		switch (shape) {
			case "one long string" -> text.append("{\"s\":\"").append("a".repeat(size - 92)).append("\"}");
			case "strings of 4 KB" -> {
				String line = "\"" + "0123456789abcdef".repeat(256) + "\"";
				fill(text.append("{\"l\":[").append(line), line, size, "]}");
			}
			case "non-ASCII text" -> {
				text.append("{\"s\":\"");
				while (text.length() < size / 3) {
					text.append('\u4e2d');
				}
				text.append("\"}");
			}
			case "escaped text" -> fill(text.append("{\"s\":[\"\\n\""), "\"\\u00e9\\t\"", size, "]}");
			case "empty objects" -> fill(text.append("{\"o\":[{}"), "{}", size, "]}");
			case "empty arrays" -> fill(text.append("{\"o\":[[]"), "[]", size, "]}");
			case "small integers" -> fill(text.append("{\"o\":[1"), "1", size, "]}");
			case "integers" -> fill(text.append("{\"o\":[11"), "11", size, "]}");
			case "decimals" -> fill(text.append("{\"o\":[0.1"), "0.1", size, "]}");
			case "empty strings" -> fill(text.append("{\"o\":[\"\""), "\"\"", size, "]}");
			case "objects of one field" -> fill(text.append("{\"o\":[{\"a\":1}"), "{\"a\":1}", size, "]}");
			case "nested objects" -> fill(text.append("{\"o\":[{\"a\":[{\"a\":[{}]}]}"), "{\"a\":[{\"a\":[{}]}]}", size, "]}");
			case "unique keys" -> {
				text.append("{\"o\":{\"k0\":1");
				for (int i = 1; text.length() < size; i++) {
					text.append(",\"k").append(i).append("\":1");
				}
				text.append("}}");
			}
			default -> throw new IllegalArgumentException(shape);
		}
		return call(text.toString());
	}

	private static void fill(StringBuilder text, String element, int size, String end) {
		while (text.length() < size) {
			text.append(',').append(element);
		}
		text.append(end);
	}

	private static long heapAfterCollection() {
		for (int i = 0; i < 3; i++) {
			System.gc();
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

	private static byte[] withByteOrderMark(byte[] body) {
		byte[] marked = new byte[body.length + 3];
		marked[0] = (byte) 0xEF;
		marked[1] = (byte) 0xBB;
		marked[2] = (byte) 0xBF;
		System.arraycopy(body, 0, marked, 3, body.length);
		return marked;
	}

	/** A JSON string of letters, escapes, and characters of one to four UTF-8 bytes. */
	private static String string(Random random) {
		StringBuilder text = new StringBuilder("\"");
		for (int i = random.nextInt(12); i > 0; i--) {
			text.append(switch (random.nextInt(9)) {
				case 0 -> "\\\"";
				case 1 -> "\\\\";
				case 2 -> "\\u00e9";
				case 3 -> "\u4e2d";
				case 4 -> "\uD83D\uDE00";
				case 5 -> "\\n";
				case 6 -> "é";
				default -> String.valueOf((char) ('a' + random.nextInt(26)));
			});
		}
		return text.append('"').toString();
	}

	/** A JSON value of every kind, with strings at every place one can stand, and odd whitespace. */
	private static String value(Random random, int depth) {
		switch (depth > 4 ? random.nextInt(4) : random.nextInt(7)) {
			case 0:
				return string(random);
			case 1:
				return Integer.toString(random.nextInt(100_000) - 50);
			case 2:
				return random.nextBoolean() ? "1.50" : "12345678901234567890123";
			case 3:
				return random.nextBoolean() ? "true" : "null";
			case 4:
			case 5: {
				StringBuilder object = new StringBuilder("{");
				Set<String> keys = new HashSet<>();
				for (int i = random.nextInt(4); i > 0; i--) {
					String key = string(random);
					if (keys.add(key)) {
						object.append(object.length() > 1 ? (random.nextBoolean() ? "," : " ,\n") : "")
							.append(key)
							.append(random.nextBoolean() ? ":" : " :\t")
							.append(value(random, depth + 1));
					}
				}
				return object.append('}').toString();
			}
			default: {
				StringBuilder array = new StringBuilder("[");
				for (int i = random.nextInt(4); i > 0; i--) {
					array.append(array.length() > 1 ? "," : "").append(value(random, depth + 1));
				}
				return array.append(']').toString();
			}
		}
	}

}
