package dev.mcprelay.sse;

import java.nio.charset.StandardCharsets;

/** Encodes SSE events the relay writes itself: errors it reports in-stream and substitutes for rejected events. */
public final class SseEventWriter {

	private SseEventWriter() {
	}

	/** A {@code message} event carrying {@code data}, split into one {@code data:} line per line. */
	public static byte[] message(String data) {
		return encode(null, "message", null, data);
	}

	/** The original event's {@code id}, {@code event} and {@code retry} fields around new data. */
	public static byte[] substitute(SseEvent original, String data) {
		return encode(original.id(), original.event() == null ? "message" : original.event(), original.retry(), data);
	}

	private static byte[] encode(String id, String event, String retry, String data) {
		StringBuilder out = new StringBuilder(data.length() + 32);
		if (id != null) {
			out.append("id: ").append(id).append('\n');
		}
		out.append("event: ").append(event).append('\n');
		if (retry != null) {
			out.append("retry: ").append(retry).append('\n');
		}
		for (String line : data.split("\r\n|\r|\n", -1)) {
			out.append("data: ").append(line).append('\n');
		}
		return out.append('\n').toString().getBytes(StandardCharsets.UTF_8);
	}

}
