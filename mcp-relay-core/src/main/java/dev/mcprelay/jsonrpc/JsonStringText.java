package dev.mcprelay.jsonrpc;

import java.nio.charset.StandardCharsets;

/**
 * Decodes the text of a JSON string with escapes or non-ASCII characters straight from a body's UTF-8 bytes, into one
 * array of one byte a character, copied once into its {@code String}: twice the text, where Jackson's decoding (its
 * segments of {@code char}, their aggregate, then the {@code String}) takes about five times it. A string with a
 * character past U+00FF, or anything this decoder does not accept as it stands (a malformed escape or UTF-8 sequence),
 * is left to Jackson ({@code null}), which reports what is wrong as it always does.
 */
final class JsonStringText {

	private JsonStringText() {
	}

	/** The text of the string between {@code start} and {@code end} (its closing quote), or {@code null}. */
	static String latin1(byte[] body, int start, int end) {
		byte[] text = new byte[end - start];
		int length = 0;
		int at = start;
		while (at < end) {
			int b = body[at] & 0xFF;
			int c;
			if (b == '\\') {
				if (at + 1 >= end) {
					return null;
				}
				int escaped = body[at + 1];
				at += 2;
				c = switch (escaped) {
					case '"', '\\', '/' -> escaped;
					case 'b' -> '\b';
					case 'f' -> '\f';
					case 'n' -> '\n';
					case 'r' -> '\r';
					case 't' -> '\t';
					case 'u' -> {
						int code = at + 4 <= end ? hex(body, at) : -1;
						at += 4;
						yield code;
					}
					default -> -1;
				};
			}
			else if (b < 0x80) {
				c = b;
				at++;
			}
			else if ((b == 0xC2 || b == 0xC3) && at + 1 < end && (body[at + 1] & 0xC0) == 0x80) {
				c = ((b & 0x1F) << 6) | (body[at + 1] & 0x3F);
				at += 2;
			}
			else {
				return null; // past U+00FF, or malformed: Jackson's
			}
			if (c < 0 || c > 0xFF) {
				return null;
			}
			text[length++] = (byte) c;
		}
		return new String(text, 0, length, StandardCharsets.ISO_8859_1);
	}

	private static int hex(byte[] body, int at) {
		int code = 0;
		for (int i = at; i < at + 4; i++) {
			int digit = Character.digit(body[i], 16);
			if (digit < 0) {
				return -1;
			}
			code = code << 4 | digit;
		}
		return code;
	}

}
