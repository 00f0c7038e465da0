package dev.mcprelay.jsonrpc;

import java.nio.charset.StandardCharsets;

/**
 * A word of ASCII text looked for in a JSON text's bytes before it is parsed: a pre-check that lets the relay parse
 * only the messages that may hold it (a method's name, {@code list_changed}), and that is exact for every JSON spelling
 * of the word. JSON may write any character of a string as an escape (<code>"list&#92;u005fchanged"</code>, a slash
 * as <code>&#92;/</code>), and the string is the same; so a text {@link #mayBeIn may hold} the word where its bytes
 * hold the word as it is written, or any escape that stands for one of its characters (<code>&#92;u00XX</code> of it,
 * hex digits in either case, or the short escape of a quote, a backslash, a slash or a control character it holds). A
 * text that holds neither cannot have a string whose decoded text holds the word; one that does may (an escape
 * elsewhere, a quoted word), and is parsed to know. Cheap: one pass over the bytes, no allocation. Immutable,
 * thread-safe.
 */
public final class JsonWord {

	private final byte[] word;

	/** Which ASCII characters the word holds, by code: an escape of any of them may spell it. */
	private final boolean[] holds = new boolean[128];

	private JsonWord(String word) {
		this.word = word.getBytes(StandardCharsets.US_ASCII);
		for (byte b : this.word) {
			holds[b] = true;
		}
	}

	/** The word {@code word}: non-empty ASCII text. */
	public static JsonWord of(String word) {
		if (word.isEmpty() || !StandardCharsets.US_ASCII.newEncoder().canEncode(word)) {
			throw new IllegalArgumentException("A JSON word is non-empty ASCII text");
		}
		return new JsonWord(word);
	}

	/** Whether a string of the JSON text {@code json} may hold the word: see the class's contract. */
	public boolean mayBeIn(byte[] json) {
		return mayBeIn(json, 0, json.length);
	}

	/** {@link #mayBeIn(byte[])} of the bytes {@code json[offset, offset + length)}. */
	public boolean mayBeIn(byte[] json, int offset, int length) {
		int end = offset + length;
		byte first = word[0];
		for (int at = offset; at < end; at++) {
			byte b = json[at];
			if (b == '\\') {
				if (escapesOneOfIts(json, at + 1, end)) {
					return true;
				}
			}
			else if (b == first && spelledAt(json, at, end)) {
				return true;
			}
		}
		return false;
	}

	/** Whether the word is written as it is at {@code at}. */
	private boolean spelledAt(byte[] json, int at, int end) {
		if (end - at < word.length) {
			return false;
		}
		for (int i = 1; i < word.length; i++) {
			if (json[at + i] != word[i]) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Whether the escape whose letter is at {@code at} (after a backslash) may stand for a character of the word; a
	 * malformed or cut escape may not (the text is then no JSON, and the parse says so).
	 */
	private boolean escapesOneOfIts(byte[] json, int at, int end) {
		if (at >= end) {
			return false;
		}
		int escaped = switch (json[at]) {
			case '"' -> '"';
			case '\\' -> '\\';
			case '/' -> '/';
			case 'b' -> '\b';
			case 'f' -> '\f';
			case 'n' -> '\n';
			case 'r' -> '\r';
			case 't' -> '\t';
			case 'u' -> at + 4 < end ? code(json, at + 1) : -1;
			default -> -1;
		};
		return escaped >= 0 && escaped < holds.length && holds[escaped];
	}

	/** The code the four hex digits at {@code at} stand for; -1 when one is no hex digit. */
	private static int code(byte[] json, int at) {
		int code = 0;
		for (int i = 0; i < 4; i++) {
			int digit = Character.digit(json[at + i], 16);
			if (digit < 0) {
				return -1;
			}
			code = code * 16 + digit;
		}
		return code;
	}

}
