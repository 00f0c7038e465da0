package dev.mcprelay.jsonrpc;

/**
 * Whether a body is JSON text as RFC 8259 (section 8.1) has systems exchange it: UTF-8, well-formed
 * ({@link Utf8}), and without a byte-order mark. Checked once, before any body is parsed, by
 * {@link JsonRpcParser} (a client's body, an upstream's) and {@link JsonRpcScanner} (an upstream's answer, an SSE
 * event's data), and by {@link NotificationScan} before it lets a notification through unread, because Jackson is
 * lenient where the relay must not be: it skips a leading UTF-8 byte-order mark, and reads a body as UTF-16 or UTF-32
 * when a zero byte is among its first four, while a client or upstream reading UTF-8 (JavaScript's
 * {@code JSON.parse}) refuses the one and reads the other as other text. A body the relay parsed in one encoding and
 * relayed to a reader of another would be policed as a message its reader never sees; so such a body is refused,
 * never relayed.
 *
 * <p>A zero byte is never part of UTF-8 JSON text (a control character in a string must be escaped, and outside
 * strings only spaces, tabs and line breaks stand between tokens), while ASCII text in UTF-16 or UTF-32 has one in
 * every character: so "no zero byte" is what tells them apart. A UTF-16 or UTF-32 byte-order mark is no well-formed
 * UTF-8. A UTF-8 byte-order mark is refused too, not dropped: RFC 8259 says a sender MUST NOT add one, and dropping it
 * would change bytes the relay otherwise relays as they came.
 *
 * @see <a href="https://www.rfc-editor.org/rfc/rfc8259#section-8.1">RFC 8259, section 8.1</a>
 */
public final class JsonText {

	private JsonText() {
	}

	/**
	 * Refuses {@code body} unless it is UTF-8 JSON text's encoding: well-formed UTF-8 with no zero byte and no
	 * byte-order mark. Says nothing of the body's JSON (the parser does that).
	 *
	 * @throws JsonRpcParseException a parse error that says which rule the body breaks
	 */
	public static void requireUtf8(byte[] body) throws JsonRpcParseException {
		String problem = problem(body, 0, body.length);
		if (problem != null) {
			throw new JsonRpcParseException("Parse error: the body " + problem, true);
		}
	}

	/** Whether {@code bytes[offset, offset + length)} is UTF-8 JSON text's encoding, as {@link #requireUtf8} asks. */
	public static boolean isUtf8(byte[] bytes, int offset, int length) {
		return problem(bytes, offset, length) == null;
	}

	/**
	 * Whether {@code text}, decoded already, came from UTF-8 JSON text's encoding as far as it can tell: no leading
	 * byte-order mark, no zero character.
	 */
	public static boolean isUtf8(String text) {
		return !text.startsWith("\uFEFF") && text.indexOf('\0') < 0;
	}

	private static String problem(byte[] bytes, int offset, int length) {
		if (length >= 3 && (bytes[offset] & 0xFF) == 0xEF && (bytes[offset + 1] & 0xFF) == 0xBB
				&& (bytes[offset + 2] & 0xFF) == 0xBF) {
			return "begins with a byte-order mark (JSON is UTF-8 without one)";
		}
		for (int i = offset; i < offset + length; i++) {
			if (bytes[i] == 0) {
				return "is not UTF-8 (it holds a zero byte, as UTF-16 and UTF-32 do)";
			}
		}
		return Utf8.isWellFormed(bytes, offset, length) ? null : "is not well-formed UTF-8";
	}

}
