package dev.mcprelay.tracing;

/**
 * The bound on text the relay puts in its telemetry from a message (a tool, prompt or method name, a resource URI, a
 * JSON-RPC id, an error's message, a caller's id): span names, span attributes, span status descriptions, span events
 * and meter tag values hold at most {@value #MAX_LENGTH} characters of it, the rest cut off and marked with
 * {@code ...}. A client's 2 MB tool name then costs a span 131 characters, not 2 MB in every export batch.
 */
final class TelemetryText {

	/** The most characters of one value that telemetry carries. */
	static final int MAX_LENGTH = 128;

	private TelemetryText() {
	}

	/** {@code text} cut to {@value #MAX_LENGTH} characters (then {@code ...}); {@code null} as {@code null}. */
	static String cut(String text) {
		if (text == null || text.length() <= MAX_LENGTH) {
			return text;
		}
		int end = Character.isHighSurrogate(text.charAt(MAX_LENGTH - 1)) ? MAX_LENGTH - 1 : MAX_LENGTH;
		return text.substring(0, end) + "...";
	}

}
