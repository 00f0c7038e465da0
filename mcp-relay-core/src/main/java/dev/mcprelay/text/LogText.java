package dev.mcprelay.text;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Text a client or an upstream chose (a tool name, an argument key, a JSON-RPC id, a method), made safe for one log
 * line: cut to {@value #MAX_LENGTH} characters (then {@code ...}), quoted, with quotes, backslashes and every control
 * character escaped, so that such text can neither forge a line (a newline) nor flood the log. Every log line that
 * carries such text passes it through here.
 */
public final class LogText {

	/** The most characters of one value a log line carries. */
	public static final int MAX_LENGTH = 128;

	private LogText() {
	}

	/** {@code text} quoted and escaped, cut to {@value #MAX_LENGTH} characters; {@code null} as {@code null}. */
	public static String quote(String text) {
		if (text == null) {
			return "null";
		}
		int end = Math.min(text.length(), MAX_LENGTH);
		StringBuilder line = new StringBuilder(end + 8).append('"');
		for (int i = 0; i < end; i++) {
			char c = text.charAt(i);
			switch (c) {
				case '"' -> line.append("\\\"");
				case '\\' -> line.append("\\\\");
				case '\n' -> line.append("\\n");
				case '\r' -> line.append("\\r");
				case '\t' -> line.append("\\t");
				default -> {
					if (c < ' ' || c == 127 || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029') {
						line.append(String.format("\\u%04x", (int) c));
					}
					else {
						line.append(c);
					}
				}
			}
		}
		line.append('"');
		if (text.length() > MAX_LENGTH) {
			line.append("...");
		}
		return line.toString();
	}

	/** A JSON-RPC id (or any JSON value): a string quoted as {@link #quote} does; anything else as its JSON, cut. */
	public static String json(JsonNode value) {
		if (value == null) {
			return "null";
		}
		if (value.isTextual()) {
			return quote(value.textValue());
		}
		String json = value.toString();
		return json.length() <= MAX_LENGTH ? json : json.substring(0, MAX_LENGTH) + "...";
	}

	/** Each of {@code texts} quoted, as a list: {@code ["_tenant", "_trace"]}. */
	public static String list(Iterable<String> texts) {
		StringBuilder line = new StringBuilder("[");
		int count = 0;
		for (String text : texts) {
			if (count > 0) {
				line.append(", ");
			}
			if (count == 16) {
				line.append("...");
				break;
			}
			line.append(quote(text));
			count++;
		}
		return line.append(']').toString();
	}

}
