package dev.mcprelay;

/**
 * Text of outside origin (an upstream's or a client's error message, a name a server chose) as a log line may carry
 * it: quoted, so that nothing in it can end the line or forge another (a CR LF in an upstream-chosen header name
 * reached the relay's WARN log through Netty's exception message, review 43h F-7), nor run on without bound.
 */
public final class LogText {

	/** The most characters of one text a log line carries. */
	private static final int MAX_CHARS = 200;

	private LogText() {
	}

	/**
	 * {@code text} in double quotes, control characters (CR, LF, tab, ...) as {@code \\uXXXX}, quotes and backslashes
	 * escaped, at most {@value #MAX_CHARS} characters of it (then {@code ...}); {@code -} for {@code null}.
	 */
	public static String quote(String text) {
		if (text == null) {
			return "-";
		}
		StringBuilder quoted = new StringBuilder(Math.min(text.length(), MAX_CHARS) + 2).append('"');
		for (int i = 0; i < text.length() && i < MAX_CHARS; i++) {
			char c = text.charAt(i);
			if (c == '"' || c == '\\') {
				quoted.append('\\').append(c);
			}
			else if (c < 0x20 || c == 0x7f) {
				quoted.append(String.format("\\u%04x", (int) c));
			}
			else {
				quoted.append(c);
			}
		}
		if (text.length() > MAX_CHARS) {
			quoted.append("...");
		}
		return quoted.append('"').toString();
	}

}
